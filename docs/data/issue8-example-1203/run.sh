#!/bin/bash
# Issue 8's own example (2026-12-03): 1 MiB MPI_Allreduce and MPI_Reduce on one node, np = 4,
# each rank delayed U[0, 1 ms) before every call (its "ē = 600 µs, 291 µs of it the wait for
# the last arriver"), balanced and one late rank of 1 ms beside it; every algorithm papshim
# has for the collective and `auto`; Open MPI and MPICH; 200 calls per point after 10.
# The dynamic leader takes vectors up to PAPSHIM_SHM_SLOT (64 KiB by default): 1 MiB here.
# Usage: run.sh ROUND   (from this directory; builds in ../../../build/{openmpi,mpich})
round=${1:-1}
top=$(cd ../../.. && pwd)
export PAPSHIM_SHM_SLOT=1048576
for mpi in openmpi mpich; do
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then run="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n 4"
  else run="mpiexec.mpich -n 4"; fi
  for coll in allreduce reduce; do
    if [ $coll = allreduce ]; then algs=native,auto,recursive_doubling,rabenseifner,ring,dynamic_leader,arrival_chain,hierarchical
    else algs=native,auto,binomial,pipelined_binomial,rabenseifner,arrival_chain; fi
    tag=$mpi-$coll-r$round
    echo "== $tag $(date +%T)"
    $run $B/bin/papshim-bench --suite sweep --collective $coll --bytes 1M --patterns uniform,one-late \
      --delays 0,1ms --algorithms $algs --iterations 200 --warmup 10 --json $tag.json > $tag.log 2>&1 \
      || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
