#!/bin/bash
# Issue 9's guard target side by side: auto against the chains under fresh random delays (10tau), emulated 1 Gbit/s, one rank per node
B=/tmp/m5  # a copy of the build with the rule (this commit)
for np in 4 8; do
  for c in reduce allreduce; do
    echo "== np$np $c $(date)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 64K,1M,4M --patterns uniform --delays 10tau \
      --iterations 20 --warmup 8 --collective $c $( [ $c = reduce ] && echo --root 0 ) \
      --algorithms native,arrival_chain,predicted_chain,auto --json guard-np$np-$c.json > guard-np$np-$c.log 2>&1
  done
done
echo "== done $(date)"
