#!/bin/bash
# `auto`'s Reduce on MPICH across the emulated 1 Gbit/s nodes, one rank per node, where it runs
# no plan: MPICH's own Reduce against papshim's trees and chain, balanced (D = 0) and under fresh
# random delays of 10 tau, p = 2 (a core per rank), 3 and 4 (oversubscribed on this 2-vCPU VM),
# and `auto` under one late rank and a staircase at p = 4 (its plans). Usage: run.sh [p...] (here).
here=$(cd "$(dirname "$0")" && pwd)
BM=${BM:-$(cd "$here/../../.." && pwd)/build/mpich}
cd "$here" || exit 1
algs=native,binomial,pipelined_binomial,arrival_chain,auto
for p in ${@:-2 3 4}; do
  for patterns in "uniform --delays 0,10tau" "one-late,staircase --delays 10tau"; do
    [ "$p" != 4 ] && [ "${patterns%% *}" != uniform ] && continue
    out=mpich-np$p-reduce-${patterns%%[, ]*}
    echo "== $out $(date +%T)"
    # shellcheck disable=SC2086
    "$BM/bin/papshim-run" --emulate-network 1gbit -- mpiexec.mpich -n "$p" "$BM/bin/papshim-bench" --suite sweep \
      --bytes 64K,256K,1M,4M --patterns $patterns --iterations 20 --warmup 8 \
      --collective reduce --root 0 --algorithms $algs --json "$out.json" > "$out.log" 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
