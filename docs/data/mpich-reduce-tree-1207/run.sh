#!/bin/bash
# `auto`'s Reduce on MPICH across the emulated 1 Gbit/s nodes where it runs no plan: MPICH's own
# Reduce against papshim's trees and chain, to root 0, 20 calls a point after 8. Modes:
#   main  (default) one rank per node, 64 KiB-4 MiB, balanced (D = 0) and fresh random delays
#         of 10 tau at p = 2 (a core per rank), 3 and 4 (oversubscribed on this 2-vCPU VM), and
#         one late rank and a staircase at p = 4 (auto's plans);
#   small 16 and 32 KiB (64 KiB beside them), below the rule, p = 2 and 4;
#   mixed two ranks on each emulated node, p = 4 and 6, 64 KiB-4 MiB.
# Usage: run.sh [main|small|mixed] (here).
here=$(cd "$(dirname "$0")" && pwd)
BM=${BM:-$(cd "$here/../../.." && pwd)/build/mpich}
cd "$here" || exit 1

# bench OUT P RANKS_PER_NODE BYTES ALGORITHMS PATTERNS...
bench() {
  local out=$1 p=$2 rpn=$3 bytes=$4 algs=$5
  shift 5
  echo "== $out $(date +%T)"
  "$BM/bin/papshim-run" --emulate-network 1gbit --ranks-per-node "$rpn" -- mpiexec.mpich -n "$p" \
    "$BM/bin/papshim-bench" --suite sweep --bytes "$bytes" --patterns "$@" --iterations 20 --warmup 8 \
    --collective reduce --root 0 --algorithms "$algs" --json "$out.json" > "$out.log" 2>&1 || echo "   FAILED rc=$?"
}

all=native,binomial,pipelined_binomial,arrival_chain,auto
case ${1:-main} in
  main)
    for p in 2 3 4; do bench mpich-np$p-reduce-uniform $p 1 64K,256K,1M,4M $all uniform --delays 0,10tau; done
    bench mpich-np4-reduce-one-late 4 1 64K,256K,1M,4M $all one-late,staircase --delays 10tau ;;
  small)
    for p in 2 4; do
      bench mpich-np$p-reduce-small $p 1 16K,32K,64K native,pipelined_binomial,arrival_chain,auto uniform --delays 0,10tau
    done ;;
  mixed)
    for p in 4 6; do bench mpich-np$p-node2-reduce $p 2 64K,256K,1M,4M $all uniform --delays 0,10tau; done ;;
  *) echo "usage: run.sh [main|small|mixed]" >&2; exit 2 ;;
esac
echo "== done $(date +%T)"
