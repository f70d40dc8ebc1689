#!/bin/bash
# Clairvoyant's Allreduce (reduce-scatter form) before (OLD: the last arriver owns a piece,
# binomial broadcasts after the whole reduce-scatter) and after (NEW: the last arriver owns
# none, each segment of at most 48 KiB goes from its root to the others once whole), with
# native and the predicted scatter beside; Allreduce, one rank per node, emulated 1 Gbit/s,
# 10 tau. NEW2: NEW with the round length d of the parts a round moves (one segment of every
# piece), not of one piece. Usage: ab.sh ROUND [NP [BUILDS]] (BUILDS: of old new new2)
OLD=${OLD:-/tmp/base} NEW=${NEW:-/tmp/new} NEW2=${NEW2:-/tmp/new2}
round=${1:-1} NP=${2:-8} builds=${3:-old new}
for b in $builds; do
  case $b in old) B=$OLD;; new) B=$NEW;; new2) B=$NEW2;; esac
  tag=clv-np$NP-$b-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $NP \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 1M,4M \
    --algorithms native,clairvoyant,predicted_scatter --patterns one-late,staircase --delays 10tau \
    --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
