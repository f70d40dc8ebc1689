#!/bin/bash
# auto's small Allreduce at 55c036c/740c8d4, where a duplicate of the world (papshim-bench's
# communicators) has the world's window from its first call: the sweep of
# ../auto-small-1205/run.sh again (native, symmetric_shm and auto, 8 B-1 KiB, one late rank and
# fresh random delays of 0, 10τ and 200 µs, 200 calls per point after 20) on shared cores. Its
# first auto point holds the 64 calls auto leaves to MPI before it makes the node view.
# Usage: run.sh ROUND   (from this directory; builds in ../../../build/{openmpi,mpich})
round=${1:-1}
top=$(cd ../../.. && pwd)
for case in ${CASES:-openmpi:4 openmpi:8 mpich:4}; do
  IFS=: read mpi np <<< "$case"
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then
    run="mpiexec.openmpi --allow-run-as-root --mca mtl ^ofi,psm,psm2 -n $np"
    [ $np -gt 2 ] && run="$run --oversubscribe"
  else run="mpiexec.mpich -n $np"; fi
  tag=$mpi-np$np-r$round
  echo "== $tag $(date +%T)"
  $run $B/bin/papshim-bench --suite sweep --collective allreduce --bytes ${BYTES:-8,64,256,1K} \
    --patterns one-late,uniform --delays 0,10tau,200us --algorithms ${ALGS:-native,symmetric_shm,auto} \
    --iterations ${ITER:-200} --warmup 20 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
  gzip -f $tag.json
done
echo "== done $(date +%T)"
