#!/bin/bash
# Balanced and 10tau fresh random Reduce and Allreduce across emulated 1 Gbit/s nodes of two ranks each (p = 8 and 4), before the rule covered them
B=/tmp/m6  # a copy of the build at c4c1440
for np in 8 4; do
  for c in reduce allreduce; do
    algs=native,binomial,arrival_chain,auto; n=rd
    [ $c = allreduce ] && algs=native,ring,rabenseifner,hierarchical,auto && n=ar
    echo "== np$np $c $(date)"
    $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node 2 -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 256K,1M,4M --patterns uniform --delays 0,10tau \
      --iterations 20 --warmup 8 --collective $c $( [ $c = reduce ] && echo --root 0 ) --algorithms $algs --json mixed-$n-np$np.json > mixed-$n-np$np.log 2>&1
  done
done
echo "== done $(date)"
