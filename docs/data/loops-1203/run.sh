#!/bin/bash
# The plans of fe35fa2 as a user runs them (emulated 1 Gbit/s, one rank per node, Open MPI, p = 8, 10 tau):
# "long": 100 calls per algorithm after 8 warm-up calls; "short": a fresh 12-call job without warm-up.
# Reduce at root 0 (auto plans the predicted chain in 16 KiB pieces), Allreduce at 2 and 4 MiB (the predicted
# scatter in chunks of at most 48 KiB). Usage: run.sh long|short [ROUND]
B=${B:-/tmp/final}
kind=${1:-long} round=${2:-1}
if [ $kind = long ]; then it=100 wu=8; else it=12 wu=0; fi
bench() {  # tag, then papshim-bench's own arguments
  local tag=$1; shift
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --patterns one-late,staircase --delays 10tau \
    --iterations $it --warmup $wu "$@" --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
}
bench $kind-reduce-r$round --collective reduce --root 0 --bytes 256K,1M \
  --algorithms native,pipelined_binomial,predicted_chain,auto
bench $kind-allreduce-r$round --collective allreduce --bytes 2M,4M \
  --algorithms native,predicted_scatter,auto
echo "== done $(date +%T)"
