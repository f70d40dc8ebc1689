#!/bin/bash
# Balanced Reduce across emulated 1 Gbit/s nodes (one rank per node): native against papshim's classic trees, p = 3..8
B=/tmp/m3  # a copy of the build at 979b27c
for np in 3 5 6 7 8 4; do
  echo "== np$np $(date)"
  PAPSHIM_HELPER_THREAD=always $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD $B/bin/papshim-bench --suite sweep --bytes 64K,256K,1M,4M --patterns uniform --delays 0 \
    --iterations 20 --warmup 8 --collective reduce --root 0 --algorithms native,binomial,rabenseifner,arrival_chain --json rd-np$np.json > rd-np$np.log 2>&1
done
echo "== done $(date)"
