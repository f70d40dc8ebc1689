#!/bin/bash
# The same rule as a short job sees it: fresh processes, no warm-up, 10 calls, three rounds per point
B=${B:-/tmp/m6}  # a copy of the build at 0da9435 (the rule as at d3bb9c4)
for round in 1 2 3; do
  for np in 4 8; do
    for c in reduce allreduce; do
      algo=binomial; [ $c = allreduce ] && algo=ring
      echo "== round$round np$np $c $(date)"
      $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
        --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 1M --patterns uniform --delays 0 \
        --iterations 10 --warmup 0 --collective $c $( [ $c = reduce ] && echo --root 0 ) \
        --algorithms native,$algo,auto --json short-r$round-np$np-$c.json > short-r$round-np$np-$c.log 2>&1
    done
  done
done
echo "== done $(date)"
