#!/bin/bash
# The predictor's choice between predicting from the exit and from the entry (2026-12-02): papshim-bench over the
# emulated 1 Gbit/s network, p = 8, one rank per node, 20 calls after 8, 10 tau, OLD (fbb1a26: from the exit only)
# and NEW (the exit or the entry, whichever missed less) interleaved. Usage: run.sh ROUND
OLD=${OLD:-/tmp/m13} NEW=${NEW:-/tmp/m15}
round=${1:-1}
export PAPSHIM_HELPER_THREAD=always
run() {  # build tag collective bytes patterns root algorithms
  echo "== $2 $(date +%T)"
  $1/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD $1/bin/papshim-bench --suite sweep \
    --collective $3 --bytes $4 --patterns $5 --delays 10tau ${6:+--root $6} --algorithms $7 --iterations 20 --warmup 8 \
    --json $2.json > $2.log 2>&1 || echo "   FAILED rc=$?"
}
for B in $OLD $NEW; do
  t=$([ $B = $OLD ] && echo old || echo new)-r$round
  run $B reduce-root0-$t reduce 256K,1M one-late,staircase 0 native,binomial,clairvoyant,auto
  run $B reduce-rotate-$t reduce 1M one-late,staircase rotate native,clairvoyant,auto
  run $B allreduce-$t allreduce 1M one-late,staircase "" native,predicted_scatter,auto
  run $B allgather-$t allgather 1M one-late,staircase "" native,bdr,auto
done
echo "== done $(date +%T)"
