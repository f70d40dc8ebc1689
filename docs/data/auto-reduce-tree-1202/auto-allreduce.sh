#!/bin/bash
# auto's Allreduce across emulated 1 Gbit/s nodes (one rank per node) with the ring where it runs no plan
B=/tmp/m5  # a copy of the build with the rule (this commit)
for np in 4 8; do
  echo "== np$np balanced+random $(date)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 1M,4M --patterns uniform --delays 0,10tau \
    --iterations 20 --warmup 8 --collective allreduce --algorithms native,ring,predicted_scatter,predicted_chain,auto --json ar-np$np-uni.json > ar-np$np-uni.log 2>&1
  echo "== np$np one-late+staircase $(date)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 1M,4M --patterns one-late,staircase --delays 10tau \
    --iterations 20 --warmup 8 --collective allreduce --algorithms native,ring,predicted_scatter,predicted_chain,auto --json ar-np$np-pred.json > ar-np$np-pred.log 2>&1
done
echo "== done $(date)"
