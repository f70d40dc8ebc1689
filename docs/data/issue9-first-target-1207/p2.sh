#!/bin/bash
# p = 2 above 4 MiB: the swap (main) against the push (a scratch build with kPushedLargeMaxBytes 8 MiB).
# usage: run.sh NAME BUILD MPI
name=$1; b=$2; mpi=$3
cd /work/main
if [ $mpi = openmpi ]; then
  launch="mpiexec.openmpi --allow-run-as-root --mca mtl ^ofi,psm,psm2 -n 2"
else
  launch="mpiexec.mpich -n 2"
fi
$b/bin/papshim-run --emulate-network 1gbit -- $launch $b/bin/papshim-bench --suite sweep --collective allreduce \
  --bytes 6M,7M --patterns one-late,staircase --delays 10tau --iterations 20 --warmup 8 \
  --algorithms native,predicted_scatter,auto --json /tmp/p2r/p2-$name.json > /tmp/p2r/$name.log 2>&1
echo "$name rc=$? $(date +%T)"
