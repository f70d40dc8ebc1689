#!/bin/bash
# The predicted chains (Reduce, Allreduce) in 16 KiB pieces (NEW) against 16 pieces per vector
# (OLD), interleaved; p = 8 (NP), one rank per node, emulated 1 Gbit/s, balanced and 10 tau
# (2026-12-03). Usage: ab.sh ROUND [allreduce|reduce-0|reduce-rotate ...]
OLD=${OLD:-/tmp/base} NEW=${NEW:-/tmp/new} NP=${NP:-8}
round=${1:-1}; shift
cases=${*:-allreduce reduce-0 reduce-rotate}
for c in $cases; do
  case $c in
    allreduce) args="--collective allreduce --bytes 512K,1M,2M,4M --algorithms native,ring,predicted_chain,predicted_scatter,auto" ;;
    reduce-*) args="--collective reduce --root ${c#reduce-} --bytes 256K,1M,4M --algorithms native,pipelined_binomial,clairvoyant,predicted_chain,auto" ;;
  esac
  for B in $OLD $NEW; do
    tag=np$NP-$c-$([ $B = $OLD ] && echo old || echo new)-r$round
    echo "== $tag $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $NP \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep $args \
      --patterns one-late,staircase --delays 0,10tau --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 \
      || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
