#!/bin/bash
# The dynamic leader's Reduce on one node (2026-12-04), against native, the binomial tree and
# the arrival chain `auto` ran from 256 KiB: 64 KiB to 4 MiB (the automatic slot is 4 MiB at
# these node sizes); balanced, one late rank and fresh random delays of 10 tau; Open MPI and
# MPICH, p = 4 and 8; 100 calls per point after 10. ROOT=rotate moves the root every call.
# Usage: [ROOT=0|rotate] run.sh ROUND   (from this directory; builds in ../../../build/{openmpi,mpich})
round=${1:-1}
root=${ROOT:-0}
top=$(cd ../../.. && pwd)
for case in ${CASES:-openmpi:4 openmpi:8 mpich:4 mpich:8}; do
  IFS=: read mpi np <<< "$case"
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then run="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n $np"
  else run="mpiexec.mpich -n $np"; fi
  tag=$mpi-np$np-root$root-r$round
  echo "== $tag $(date +%T)"
  $run $B/bin/papshim-bench --suite sweep --collective reduce --root $root --bytes ${BYTES:-64K,256K,1M,4M} \
    --patterns one-late,uniform --delays 0,10tau --algorithms ${ALGS:-native,auto,binomial,arrival_chain,dynamic_leader} \
    --iterations ${ITER:-100} --warmup 10 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
