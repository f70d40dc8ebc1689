#!/bin/bash
# Reduce under fresh random delays (2 and 10 tau), and balanced Allreduce, across emulated 1 Gbit/s nodes (one rank per node)
B=/tmp/m3  # a copy of the build at 979b27c
for np in 4 8 6 5 7; do
  echo "== rd-imb np$np $(date)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 256K,1M,4M --patterns uniform --delays 2tau,10tau \
    --iterations 20 --warmup 8 --collective reduce --root 0 --algorithms native,binomial,arrival_chain --json rdimb-np$np.json > rdimb-np$np.log 2>&1
done
for np in 4 8 6; do
  echo "== ar-bal np$np $(date)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 64K,256K,1M,4M --patterns uniform --delays 0 \
    --iterations 20 --warmup 8 --collective allreduce --algorithms native,recursive_doubling,rabenseifner,ring,arrival_chain --json arbal-np$np.json > arbal-np$np.log 2>&1
done
echo "== done $(date)"
