#!/bin/bash
# auto's classic Reduce (binomial tree) and Allreduce (ring) rule in a long loop: one papshim-bench process per
# point, 200 measured calls after 10 of warm-up, native, the classic schedule named and auto interleaved per call,
# one rank per emulated 1 Gbit/s node, 1 MiB, balanced and fresh random delays of 10tau
B=${B:-/tmp/m6}  # a copy of the build at 0da9435 (the rule as at d3bb9c4)
for np in 4 8; do
  for c in reduce allreduce; do
    algo=binomial; [ $c = allreduce ] && algo=ring
    echo "== np$np $c $(date)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 1M --patterns uniform --delays 0,10tau \
      --iterations 200 --warmup 10 --collective $c $( [ $c = reduce ] && echo --root 0 ) \
      --algorithms native,$algo,auto --json long-np$np-$c.json > long-np$np-$c.log 2>&1
  done
done
echo "== done $(date)"
