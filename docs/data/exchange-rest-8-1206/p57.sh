#!/bin/bash
# auto's Allreduce rule (the predicted scatter from 128 KiB with >= 4 ranks, chunks within 48 KiB)
# at p = 5, 6, 7: one rank per emulated 1 Gbit/s node, 10 tau, 20 calls per point after 8.
B=${B:-/tmp/new}
round=${1:-1}
for np in 5 6 7; do
  out=np$np-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 128K,256K,384K,512K \
    --algorithms native,arrival_chain,clairvoyant,auto --patterns one-late,staircase,uniform --delays 10tau \
    --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
done
echo "== done $(date +%T)"
