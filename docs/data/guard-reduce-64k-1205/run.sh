#!/bin/bash
# Issue 9's guard target at its one missed point: Reduce 64 KiB, root 0, fresh random delays
# of 10 tau and balanced, one rank per emulated 1 Gbit/s node, p = 8 and 4, Open MPI; native,
# the trees, the arrival-ordered chain and auto (native there) interleaved per call.
# B: an install of the build. Usage: run.sh ROUND
B=${B:-/tmp/clv4}
round=${1:-1}
for np in 8 4; do
  out=np$np-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --root 0 --bytes 64K,128K \
    --algorithms native,binomial,pipelined_binomial,arrival_chain,auto --patterns uniform --delays 0,10tau \
    --iterations 30 --warmup 8 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
