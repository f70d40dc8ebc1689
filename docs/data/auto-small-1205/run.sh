#!/bin/bash
# `auto`'s Allreduce up to 1 KiB on one node (2026-12-05): on a node of shared cores it runs
# symmetric_shm; with a core per rank it forwards to MPI as before. native, symmetric_shm named
# and auto interleaved, 8 B to 1 KiB, balanced, one late rank and fresh random delays of 10τ
# and of 200 µs; 200 calls per point after 20. A core per rank: p = 2 on the VM's 2 cores (Open
# MPI launched without --oversubscribe); shared cores: Open MPI p = 4 and 8, MPICH p = 4.
# Usage: run.sh ROUND   (from this directory; builds in ../../../build/{openmpi,mpich})
round=${1:-1}
top=$(cd ../../.. && pwd)
for case in ${CASES:-openmpi:2 mpich:2 openmpi:4 openmpi:8 mpich:4}; do
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
