#!/bin/bash
# More 100-call loops of auto's Allreduce plan (the predicted scatter), emulated 1 Gbit/s, one rank per node,
# Open MPI, 10 tau: p = 8 at 1 MiB (issue 8's measured size), p = 4 at 1 and 4 MiB.
B=${B:-/tmp/final}
for c in 8:1M 4:1M,4M; do
  np=${c%%:*} bytes=${c#*:} tag=long-allreduce-np${c%%:*}-r1
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes $bytes \
    --algorithms native,predicted_scatter,auto --patterns one-late,staircase --delays 10tau \
    --iterations 100 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
