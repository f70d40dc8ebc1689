#!/bin/bash
# Reduce below auto's 256 KiB rule across emulated 1 Gbit/s nodes (one rank per node): native against the binomial
# tree at 64 and 128 KiB, p = 4..8, balanced and fresh random delays of 10tau (auto alongside: native there until now)
B=${B:-/tmp/m6}  # a copy of the build at 0da9435 (the rule as at d3bb9c4)
for np in 4 5 6 7 8; do
  echo "== np$np $(date)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 64K,128K --patterns uniform --delays 0,10tau \
    --iterations 20 --warmup 8 --collective reduce --root 0 --algorithms native,binomial,auto --json small${TAG}-np$np.json > small${TAG}-np$np.log 2>&1
done
echo "== done $(date)"
