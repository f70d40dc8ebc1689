#!/bin/bash
# auto's Reduce before (OLD: whole-vector tree where no plan runs) and after (NEW: the pipelined
# tree), interleaved; p = 8, one rank per node, emulated 1 Gbit/s, rotating root and root 0,
# balanced and 10 tau (2026-12-03). Usage: ab.sh ROUND
OLD=${OLD:-/tmp/m01} NEW=${NEW:-/tmp/m05}
round=${1:-1}
for root in rotate 0; do
  for B in $OLD $NEW; do
    tag=ab-np8-root$root-$([ $B = $OLD ] && echo old || echo new)-r$round
    echo "== $tag $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --bytes 256K,1M,4M \
      --root $root --patterns one-late,staircase,uniform --delays 0,10tau --algorithms native,auto \
      --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
