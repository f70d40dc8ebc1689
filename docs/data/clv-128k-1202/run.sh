#!/bin/bash
# auto's Reduce at 128 and 256 KiB across emulated 1 Gbit/s nodes (one rank per node): MAIN (the tree where no
# plan runs, Clairvoyant's plan from 512 KiB) against CLV128 (the same build with Clairvoyant's plan from 128 KiB),
# interleaved; each run has native, the tree, Clairvoyant named and auto. Usage: run.sh ROUND
MAIN=${MAIN:-/tmp/m10} CLV128=${CLV128:-/tmp/bv128}  # MAIN: a build of 843d9b2; CLV128: cba39e1 with network_reduce_min_bytes = 128 * 1024
round=${1:-1}
bench() {  # build tag np bytes patterns delays
  $1/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $3 \
    --mca mtl ^ofi,psm,psm2 $1/bin/papshim-bench --suite sweep --bytes $4 --patterns $5 --delays $6 \
    --iterations 20 --warmup 8 --collective reduce --root 0 --algorithms native,binomial,clairvoyant,auto --json $2.json > $2.log 2>&1
}
for bytes in 128K 256K; do
  for np in 4 8; do
    for B in $MAIN $CLV128; do
      tag=$([ $B = $MAIN ] && echo main || echo clv128)-r$round-np$np-$bytes
      echo "== $tag $(date)"
      bench $B $tag-pred $np $bytes one-late,staircase 2tau,6tau,10tau
      bench $B $tag-uni $np $bytes uniform 0,10tau
    done
  done
done
echo "== done $(date)"
