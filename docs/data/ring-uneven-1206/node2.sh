#!/bin/bash
# B: an install of the first rule's commit, c1aa832 (auto there: native with several ranks per node).
# Two ranks per emulated node over 3 and 5 nodes (p = 6, 10): native against papshim's
# classic and node-aware Allreduces and auto, balanced and at 10 tau.
B=${B:-/tmp/nring}
round=${1:-1}
for np in 6 10; do
  out=np$np-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node 2 -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 256K,512K,1M \
    --algorithms native,ring,hierarchical,rabenseifner,auto --patterns uniform \
    --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
done
echo "== done $(date +%T)"
