#!/bin/bash
# B: an install of the first rule's commit, c1aa832 (auto there: native with several ranks per node).
# Several ranks per emulated node, p not a power of two: 12 as 6 nodes of 2, 9 as 3 nodes of 3;
# native, the ring and auto, 512 KiB-2 MiB, balanced and at 10 tau.
B=${B:-/tmp/nring}
round=${1:-1}
for cfg in 12:2 9:3; do
  np=${cfg%:*}; per=${cfg#*:}; out=np$np-per$per-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node $per -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 512K,1M,2M \
    --algorithms native,ring,auto --patterns uniform \
    --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
done
echo "== done $(date +%T)"
