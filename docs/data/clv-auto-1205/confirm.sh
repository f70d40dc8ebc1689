#!/bin/bash
# The rule as committed (Clairvoyant's Allreduce from 128 KiB, the predicted scatter from
# 384 KiB), with the arrival-ordered chain beside for the guard's target. B: an install of
# the build; MPI=mpich runs MPICH (oversubscribed: see docs/benchmarks.md). Usage: confirm.sh ROUND
B=${B:-/tmp/clv384}
MPI=${MPI:-openmpi}
round=${1:-1}
algs=native,clairvoyant,predicted_scatter,arrival_chain,auto
launch="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
[ $MPI = mpich ] && launch=mpiexec.mpich
for np in ${NPS:-8 4}; do
  for set in "pred one-late,staircase 10tau" "uni uniform 0,10tau"; do
    read -r tag patterns delays <<< "$set"
    out=c-$MPI-np$np-$tag-r$round
    echo "== $out $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- $launch -n $np $B/bin/papshim-bench --suite sweep \
      --collective allreduce --bytes ${BYTES:-128K,256K,320K,384K} --algorithms $algs --patterns $patterns \
      --delays $delays --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
