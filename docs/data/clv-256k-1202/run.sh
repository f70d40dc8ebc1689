#!/bin/bash
# auto's Reduce at 256 KiB across emulated 1 Gbit/s nodes (one rank per node): MAIN (the tree where no plan runs,
# Clairvoyant's plan from 512 KiB) against CLV256 (the same build with Clairvoyant's plan from 256 KiB), interleaved
MAIN=${MAIN:-/tmp/m10} CLV256=${CLV256:-/tmp/bv256}  # MAIN: a build of 843d9b2; CLV256: 8f327e0 with network_reduce_min_bytes = 256 * 1024
# Usage: run.sh ROUND (rounds 1-3 were run; ../clv-128k-1202/summarise.py reads them with that directory's)
round=${1:-1}
for np in ${NPS:-4 8}; do  # rounds 8-9: NPS=6
  for B in $MAIN $CLV256; do
    tag=$([ $B = $MAIN ] && echo main || echo clv256)-r$round-np$np
    echo "== $tag $(date)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 256K --patterns one-late,staircase --delays 2tau,6tau,10tau \
      --iterations 20 --warmup 8 --collective reduce --root 0 --algorithms native,binomial,clairvoyant,auto --json $tag-pred.json > $tag-pred.log 2>&1
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 256K --patterns uniform --delays 0,10tau \
      --iterations 20 --warmup 8 --collective reduce --root 0 --algorithms native,binomial,clairvoyant,auto --json $tag-uni.json > $tag-uni.log 2>&1
  done
done
echo "== done $(date)"
