#!/bin/bash
# p = 8 only: before (f5122db) against final (843d9b2), fresh 10-call jobs, interleaved, three rounds
# BEFORE: a build of f5122db; FINAL: of 843d9b2 (the world node map, the planner's duplicates blocking)
BEFORE=${BEFORE:-/tmp/m7} FINAL=${FINAL:-/tmp/m10}
for round in 1 2 3; do
  for c in reduce allreduce; do
    algo=binomial; [ $c = allreduce ] && algo=ring
    for B in $BEFORE $FINAL; do
      tag=$([ $B = $BEFORE ] && echo before2 || echo final)-r$round-np8-$c
      $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
        --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 1M --patterns uniform --delays 0 \
        --iterations 10 --warmup 0 --collective $c $( [ $c = reduce ] && echo --root 0 ) \
        --algorithms native,$algo,auto --json $tag.json > $tag.log 2>&1
    done
  done
done
echo done
