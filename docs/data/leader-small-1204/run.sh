#!/bin/bash
# Issue 8's "dynamic_leader's ē below native's for small messages on a node under imbalance",
# at the build of 2026-12-04 (the leader now has a Reduce too): 8 B and 64 KiB, Allreduce and
# Reduce (root 0), native, dynamic_leader and auto interleaved, balanced, one late rank and
# fresh random delays of 10τ and of 200 µs (at 8 B τ is a few µs, so 10τ is a small spread);
# Open MPI p = 4 and 8, MPICH p = 4; 200 calls per point after 20.
# Usage: run.sh ROUND   (from this directory; builds in ../../../build/{openmpi,mpich})
round=${1:-1}
top=$(cd ../../.. && pwd)
for case in ${CASES:-openmpi:4 openmpi:8 mpich:4}; do
  IFS=: read mpi np <<< "$case"
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then run="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n $np"
  else run="mpiexec.mpich -n $np"; fi
  for c in allreduce reduce; do
    tag=$mpi-np$np-$c-r$round
    echo "== $tag $(date +%T)"
    $run $B/bin/papshim-bench --suite sweep --collective $c --bytes 8,64K --patterns one-late,uniform \
      --delays 0,10tau,200us --algorithms native,dynamic_leader,auto --iterations ${ITER:-200} --warmup 20 \
      --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
