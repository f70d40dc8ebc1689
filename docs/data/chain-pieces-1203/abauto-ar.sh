#!/bin/bash
# auto's Allreduce at 2 and 4 MiB, p = 8, one rank per node, emulated 1 Gbit/s, 10 tau: the
# predicted chain (OLD, 7e188d1) against the predicted scatter in chunks of at most 48 KiB
# (NEW), interleaved, with both named beside. Usage: abauto-ar.sh ROUND
OLD=${OLD:-/tmp/base} NEW=${NEW:-/tmp/final}
round=${1:-1}
for B in $OLD $NEW; do
  tag=autoar-np8-$([ $B = $OLD ] && echo old || echo new)-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 2M,4M \
    --algorithms native,predicted_chain,predicted_scatter,auto --patterns one-late,staircase --delays 10tau \
    --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
