#!/bin/bash
# The small chain Reduce rule as a user runs it (emulated 1 Gbit/s, one rank per node, Open MPI,
# root 0, 10 tau, one late rank and a staircase): "long": 100 calls per algorithm after 8 warm-up
# calls; "short": a fresh 12-call job without warm-up. p = 8 at 128 KiB, p = 4 at 64 and 128 KiB.
# Usage: loops.sh long|short [ROUND]
B=${B:-build/openmpi}
kind=${1:-long} round=${2:-1}
if [ $kind = long ]; then it=100 wu=8; else it=12 wu=0; fi
bench() {  # tag, ranks, then papshim-bench's own arguments
  local tag=$1 np=$2; shift 2
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --root 0 \
    --patterns one-late,staircase --delays 10tau --iterations $it --warmup $wu \
    --algorithms native,pipelined_binomial,predicted_chain,auto "$@" --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
}
bench $kind-np8-r$round 8 --bytes 128K
bench $kind-np4-r$round 4 --bytes 64K,128K
echo "== done $(date +%T)"
