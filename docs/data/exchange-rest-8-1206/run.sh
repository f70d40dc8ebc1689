#!/bin/bash
# Variants of the rest: current (XLEASH=0), a leash of 6 after a chance exit, plus rest after 8, and rest after 1 (floor).
B=${B:-/tmp/scr/b}
round=${1:-1}
IFS=, read -ra VV <<< "${VARS:-0 16,6 16,6 8,0 1}"; for v in "${VV[@]}"; do
  set -- $v
  out=l$1-r$2-r$round
  echo "== $out $(date +%T)"
  XLEASH=$1 XRESTAFTER=$2 $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x XLEASH -x XRESTAFTER $B/bin/papshim-bench --suite sweep --collective allreduce --bytes ${BYTES:-128K,256K} \
    --algorithms native,arrival_chain,auto --patterns ${PATS:-uniform} --delays 10tau \
    --iterations ${IT:-100} --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED rc=$?"
done
echo "== done $(date +%T)"
