#!/bin/bash
# Fresh processes, short runs (2026-12-04): issue 8's example as a user meets it, 12 calls a job
# and no warm-up, 1 MiB MPI_Reduce (root 0) on one node, each rank delayed U[0, 1 ms) or one
# rank 1 ms late; native, auto and dynamic_leader in the same job; 5 jobs per MPI and size.
# Usage: short.sh   (from this directory; builds in ../../../build/{openmpi,mpich})
top=$(cd ../../.. && pwd)
for case in openmpi:4 openmpi:8 mpich:4; do
  IFS=: read mpi np <<< "$case"
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then run="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n $np"
  else run="mpiexec.mpich -n $np"; fi
  for job in 1 2 3 4 5; do
    tag=short-$mpi-np$np-$job
    $run $B/bin/papshim-bench --suite sweep --collective reduce --bytes 1M --patterns uniform,one-late --delays 1ms \
      --algorithms native,auto,dynamic_leader --iterations 12 --warmup 0 --seed $job > $tag.log 2>&1 || echo "$tag FAILED rc=$?"
  done
done
