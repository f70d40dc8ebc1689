#!/bin/bash
# Fresh 10-call jobs (no warm-up), 1 MiB, balanced, emulated 1 Gbit/s with one rank per node:
# two builds interleaved job by job, three rounds, for each p in NPS.
# As run first: BEFORE a build of f5122db, AFTER of 74678e7 (the world node map and the
# planner's MPI_Comm_idup pair), tags before/after, p = 4 and 8. first-call-final.sh runs it again.
BEFORE=${BEFORE:-/tmp/m7} AFTER=${AFTER:-/tmp/m8}
BEFORE_TAG=${BEFORE_TAG:-before} AFTER_TAG=${AFTER_TAG:-after} NPS=${NPS:-"4 8"}
for round in 1 2 3; do
  for np in $NPS; do
    for c in reduce allreduce; do
      algo=binomial; [ $c = allreduce ] && algo=ring
      for B in $BEFORE $AFTER; do
        tag=$([ $B = $BEFORE ] && echo $BEFORE_TAG || echo $AFTER_TAG)-r$round-np$np-$c
        $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
          --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 1M --patterns uniform --delays 0 \
          --iterations 10 --warmup 0 --collective $c $( [ $c = reduce ] && echo --root 0 ) \
          --algorithms native,$algo,auto --json $tag.json > $tag.log 2>&1
      done
    done
  done
done
echo done
