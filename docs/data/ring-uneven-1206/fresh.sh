#!/bin/bash
# OLD: an install of 085d7c6, NEW: of the rule's commit (cmake --install build/openmpi --prefix DIR).
# Fresh short jobs: 16 calls from the first (no warm-up), native and auto interleaved, balanced
# and under fresh random delays of 10 tau, with the rule (new) and before it (old). loop.sh
# runs it with NPS="5 9" ITERATIONS=100 WARMUP=8.
OLD=${OLD:-/tmp/cur}; NEW=${NEW:-/tmp/nring}
round=${1:-1}
for np in ${NPS:-3 5 9}; do
  bytes=$([ $np = 9 ] && echo 512K || echo 256K)
  for b in new old; do
    B=$([ $b = new ] && echo $NEW || echo $OLD); out=np$np-$b-r$round
    echo "== $out $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes $bytes \
      --algorithms native,auto --patterns uniform --delays 0,10tau --iterations ${ITERATIONS:-16} --warmup ${WARMUP:-0} \
      --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
  done
done
echo "== done $(date +%T)"
