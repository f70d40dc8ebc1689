#!/bin/bash
# auto's Allreduce below 512 KiB across emulated 1 Gbit/s nodes (one rank per node), with
# Clairvoyant's Allreduce as its planned candidate from 128 KiB. B: an install of the build.
# Usage: sweep.sh ROUND
B=${B:-/tmp/clv128}
round=${1:-1}
algs=native,clairvoyant,predicted_scatter,auto
for np in 8 4; do
  for set in "pred one-late,staircase 10tau" "uni uniform 0,10tau"; do
    read -r tag patterns delays <<< "$set"
    echo "== np$np $tag r$round $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 64K,128K,256K,384K,512K \
      --algorithms $algs --patterns $patterns --delays $delays \
      --iterations 20 --warmup 8 --json np$np-$tag-r$round.json > np$np-$tag-r$round.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
