#!/bin/bash
# The tree under imbalance only where Open MPI 4.1 runs a linear Reduce (2026-12-02): papshim-bench, emulated
# 1 Gbit/s, one rank per node, 10 tau, 20 calls after 8; OLD (02329de: the tree wherever no plan runs) and NEW
# (native under imbalance where Open MPI runs its binomial tree) interleaved. Usage: run.sh ROUND
OLD=${OLD:-/tmp/m16} NEW=${NEW:-/tmp/m17}
round=${1:-1}
for case in 8:1M:rotate 8:1M:0 4:512K:rotate 4:1M:rotate; do
  IFS=: read np bytes root <<< "$case"
  for B in $OLD $NEW; do
    tag=np$np-$bytes-root$root-$([ $B = $OLD ] && echo old || echo new)-r$round
    echo "== $tag $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --bytes $bytes --root $root \
      --patterns one-late,staircase,uniform --delays 10tau --algorithms native,auto \
      --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
