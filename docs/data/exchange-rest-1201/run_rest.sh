#!/bin/bash
# usage: run_rest.sh BUILD OUT-prefix (writes OUT-prefix-reduce.json and -allreduce.json): auto vs native, Reduce and Allreduce, one rank per emulated node, p = 8
B=$1; OUT=$2
export PAPSHIM_HELPER_THREAD=always
for c in reduce allreduce; do
$B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
  --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD \
  $B/bin/papshim-bench --suite sweep --collective $c $( [ $c = reduce ] && echo --root 0 ) --bytes 512K,1M \
  --patterns uniform,staircase,one-late --delays 4tau,10tau --algorithms native,auto \
  --iterations 60 --warmup 10 --json $OUT-$c.json > $OUT-$c.log 2>&1
done
