#!/bin/bash
# Before (16, the scratch build without XRESTAFTER) and after (8, the committed build), alternating:
# Allreduce and Reduce (root 0), 128 KiB-1 MiB, p = 8, one rank per emulated 1 Gbit/s node,
# 10 tau, the patterns in two orders on one communicator, 60 calls per point after 8.
round=${1:-1}
for coll in allreduce reduce; do
 for order in one-late,staircase,uniform uniform,staircase,one-late; do
  for b in before:/tmp/scr/b after:/tmp/new; do
   name=${b%%:*}; B=${b#*:}
   out=$coll-${order%%,*}-first-$name-r$round
   echo "== $out $(date +%T)"
   $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective $coll $([ $coll = reduce ] && echo --root 0) \
    --bytes 128K,256K,512K,1M --algorithms native,arrival_chain,auto --patterns $order --delays 10tau \
    --iterations 60 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
  done
 done
done
echo "== done $(date +%T)"
