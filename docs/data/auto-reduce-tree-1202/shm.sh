#!/bin/bash
# Balanced Reduce and Allreduce on one node (shared memory): native against papshim's classic schedules
B=/tmp/m6  # a copy of the build at c4c1440
for np in 4 8; do
  echo "== np$np reduce $(date)"
  mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 64K,256K,1M,4M \
    --patterns uniform --delays 0 --iterations 40 --warmup 10 --collective reduce --root 0 --algorithms native,binomial,arrival_chain,auto --json shm-rd-np$np.json > shm-rd-np$np.log 2>&1
  echo "== np$np allreduce $(date)"
  mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 64K,256K,1M,4M \
    --patterns uniform --delays 0 --iterations 40 --warmup 10 --collective allreduce --algorithms native,ring,rabenseifner,auto --json shm-ar-np$np.json > shm-ar-np$np.log 2>&1
done
echo "== done $(date)"
