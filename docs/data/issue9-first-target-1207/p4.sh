#!/bin/bash
# p = 3 and 4 above 4 MiB: the swap (main) against the push (a scratch build with kPushedLargeMaxBytes 8 MiB).
# usage: p4.sh NAME BUILD NP
cd /work/main
$2/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n $3 \
  $2/bin/papshim-bench --suite sweep --collective allreduce --bytes 6M --patterns one-late,staircase --delays 10tau \
  --iterations 20 --warmup 8 --algorithms native,predicted_scatter,auto --json /tmp/p2r/$1.json > /tmp/p2r/$1.log 2>&1
echo "$1 rc=$? $(date +%T)"
