#!/bin/bash
# The same on shared memory (Open MPI, 4 ranks on 2 cores), one round per build.
OLD=${OLD:-/tmp/base} NEW2=${NEW2:-/tmp/new2} NP=${NP:-4}
for b in old new2; do
  B=$OLD; [ $b = new2 ] && B=$NEW2
  tag=shm-np$NP-$b
  echo "== $tag $(date +%T)"
  mpiexec.openmpi --allow-run-as-root --oversubscribe -n $NP --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep \
    --collective allreduce --bytes 1M,4M --algorithms native,clairvoyant,predicted_scatter --patterns one-late,staircase \
    --delays 10tau --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
