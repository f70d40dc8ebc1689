#!/bin/bash
# The rule as committed (the predicted scatter in chunks of at least 32 KiB from 128 KiB and
# 4 ranks), Clairvoyant's reduce-scatter form (auto's choice there before) and the
# arrival-ordered chain beside. B: an install of the build. Usage: confirm.sh ROUND
B=${B:-/tmp/new1}
round=${1:-1}
algs=native,clairvoyant,predicted_scatter,arrival_chain,auto
for np in ${NPS:-8 4}; do
  for set in "pred one-late,staircase 10tau" "uni uniform 0,10tau"; do
    read -r tag patterns delays <<< "$set"
    out=c-np$np-$tag-r$round
    echo "== $out $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe \
      --mca mtl ^ofi,psm,psm2 -n $np $B/bin/papshim-bench --suite sweep --collective allreduce \
      --bytes ${BYTES:-128K,256K,384K,512K} --algorithms $algs --patterns $patterns \
      --delays $delays --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
