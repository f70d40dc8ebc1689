#!/bin/bash
# Fresh jobs: one pattern, 16 calls from the first (no warm-up), rest after 16 (as committed) or 8.
B=${B:-/tmp/scr/b}
round=${1:-1}
for coll in allreduce reduce; do
 for pat in one-late staircase uniform; do
  for r in 16 8; do
   out=$coll-$pat-r$r-r$round
   XRESTAFTER=$r $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x XRESTAFTER $B/bin/papshim-bench --suite sweep --collective $coll $([ $coll = reduce ] && echo --root 0) --bytes 256K,1M \
    --algorithms native,auto --patterns $pat --delays 10tau --iterations 16 --warmup 0 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
  done
 done
done
echo "== done $(date +%T)"
