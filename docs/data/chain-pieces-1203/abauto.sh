#!/bin/bash
# auto's Reduce with one rank per node: Clairvoyant's plan (OLD) against the predicted chain in
# 16 KiB pieces (NEW), interleaved, with both named and the pipelined tree beside; emulated
# 1 Gbit/s, 2 and 10 tau. Usage: abauto.sh ROUND [NP:ROOT ...]  (default 8:0 8:rotate 4:0)
OLD=${OLD:-/tmp/base} NEW=${NEW:-/tmp/v2}
round=${1:-1}; shift
for c in ${*:-8:0 8:rotate 4:0}; do
  np=${c%%:*} root=${c#*:}
  for B in $OLD $NEW; do
    tag=auto-np$np-root$root-$([ $B = $OLD ] && echo old || echo new)-r$round
    echo "== $tag $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --root $root --bytes 256K,1M,4M \
      --algorithms native,pipelined_binomial,clairvoyant,predicted_chain,auto --patterns one-late,staircase,uniform \
      --delays 2tau,10tau --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
