#!/bin/bash
# The rule as committed (auto's Reduce runs the pipelined tree from 64 KiB across nodes where
# it has no plan), under every pattern: balanced, fresh random, one late rank, a staircase
# (10 tau), 32-128 KiB, root 0. Usage: confirm.sh ROUND
B=${B:-/tmp/tree64}
round=${1:-1}
for set in 8:1 4:1 8:2; do
  IFS=: read np per <<< "$set"
  for pats in "uni uniform 0,10tau" "pred one-late,staircase 10tau"; do
    read -r tag patterns delays <<< "$pats"
    out=c-np$np-per$per-$tag-r$round
    echo "== $out $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node $per -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --root 0 --bytes 32K,64K,128K \
      --algorithms native,pipelined_binomial,arrival_chain,auto --patterns $patterns --delays $delays \
      --iterations 30 --warmup 8 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
