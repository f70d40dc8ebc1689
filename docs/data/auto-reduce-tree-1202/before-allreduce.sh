#!/bin/bash
# Allreduce across emulated 1 Gbit/s nodes (one rank per node): the ring against native, balanced and under fresh random delays
B=/tmp/m4  # a copy of the build with the Reduce rule only
for np in 4 8; do
  echo "== np$np $(date)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 512K,1M,4M --patterns uniform --delays 0,2tau,10tau \
    --iterations 20 --warmup 8 --collective allreduce --algorithms native,ring,rabenseifner,auto --json ar-np$np.json > ar-np$np.log 2>&1
done
echo "== done $(date)"
