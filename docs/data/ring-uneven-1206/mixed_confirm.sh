#!/bin/bash
# B: an install of the several-ranks-a-node rule's commit; the JSON files are named np<p>-new-r<n> (3 nodes each).
# auto with the several-ranks-a-node rule against native: p = 6 (3 nodes of 2) and 9 (3 of 3),
# 1 MiB, balanced and at 10 tau, 20 calls after 8.
B=${B:-/tmp/nring2}
round=${1:-1}
for cfg in 6:2 9:3; do
  np=${cfg%:*}; per=${cfg#*:}; out=np$np-new-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node $per -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 1M \
    --algorithms native,auto --patterns uniform,one-late \
    --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
done
echo "== done $(date +%T)"
