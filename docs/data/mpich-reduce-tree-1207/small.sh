#!/bin/bash
# Below the rule's 64 KiB: MPICH's Reduce against papshim's pipelined tree at 16 and 32 KiB
# (and 64 KiB beside them), p = 2 (a core per rank) and 4, balanced and fresh random delays of
# 10 tau, one rank per emulated node. Usage: small.sh (here).
here=$(cd "$(dirname "$0")" && pwd)
BM=${BM:-$(cd "$here/../../.." && pwd)/build/mpich}
cd "$here" || exit 1
for p in 2 4; do
  out=mpich-np$p-reduce-small
  echo "== $out $(date +%T)"
  "$BM/bin/papshim-run" --emulate-network 1gbit -- mpiexec.mpich -n "$p" "$BM/bin/papshim-bench" --suite sweep \
    --bytes 16K,32K,64K --patterns uniform --delays 0,10tau --iterations 20 --warmup 8 \
    --collective reduce --root 0 --algorithms native,pipelined_binomial,arrival_chain,auto --json "$out.json" \
    > "$out.log" 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
