#!/bin/bash
# auto's Reduce across emulated 1 Gbit/s nodes of two ranks each, with the binomial tree where it runs no plan
B=/tmp/m7  # a copy of the build with the rule for several ranks per node
for np in 8 4; do
  echo "== np$np reduce $(date)"
  $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node 2 -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 256K,1M,4M --patterns uniform,one-late --delays 0,10tau \
    --iterations 20 --warmup 8 --collective reduce --root 0 --algorithms native,binomial,auto --json auto-mixed-rd-np$np.json > auto-mixed-rd-np$np.log 2>&1
done
echo "== done $(date)"
