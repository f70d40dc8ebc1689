#!/bin/bash
# A short job as a user runs it: fresh processes, no warm-up, 10 Reduces of 64 KiB, balanced,
# root 0, one rank per emulated 1 Gbit/s node; native, the pipelined tree named and auto (whose
# first call on the communicator makes its node view and planner). Usage: short.sh ROUND
B=${B:-/tmp/tree64}
round=${1:-1}
for np in 8 4; do
  out=short-np$np-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --root 0 --bytes 64K \
    --algorithms native,pipelined_binomial,auto --patterns uniform --delays 0 \
    --iterations 10 --warmup 0 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
