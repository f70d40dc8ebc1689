#!/bin/bash
# The pipelined binomial Reduce below auto's 256 KiB (kAutoReduceTreeMinBytes) across emulated
# 1 Gbit/s nodes: 16-256 KiB, p = 4..8 one rank per node and p = 4, 8 with two per node,
# balanced and fresh random delays of 10 tau, root 0. Usage: scan.sh ROUND
B=${B:-/tmp/clv4}
round=${1:-1}
for set in 8:1 6:1 5:1 4:1 8:2 4:2; do
  IFS=: read np per <<< "$set"
  out=scan-np$np-per$per-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node $per -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --root 0 --bytes 16K,32K,64K,128K,256K \
    --algorithms native,pipelined_binomial,auto --patterns uniform --delays 0,10tau \
    --iterations 30 --warmup 8 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
