#!/bin/bash
# The lower end of issue 9's range: 64 and 256 KiB, p = 8, old (a20ad27) and the committed form
# (ce14384), otherwise as ab.sh. Usage: small.sh ROUND
round=${1:-1}
for b in old new3; do
  B=/tmp/base; [ $b = new3 ] && B=/tmp/new3
  echo "== $b $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 64K,256K \
    --algorithms native,clairvoyant,predicted_scatter --patterns one-late,staircase --delays 10tau \
    --iterations 20 --warmup 8 --json small-np8-$b-r$round.json > small-np8-$b-r$round.log 2>&1 || echo "   FAILED rc=$?"
done
