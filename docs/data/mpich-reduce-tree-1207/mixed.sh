#!/bin/bash
# MPICH with two ranks on each emulated node (p = 4 and 6 on this 2-vCPU VM): does its own
# Reduce lose to papshim's pipelined tree there too? Balanced (D = 0) and fresh random delays
# of 10 tau, 64 KiB-4 MiB. Usage: mixed.sh (here).
here=$(cd "$(dirname "$0")" && pwd)
BM=${BM:-$(cd "$here/../../.." && pwd)/build/mpich}
cd "$here" || exit 1
for p in 4 6; do
  out=mpich-np$p-node2-reduce
  echo "== $out $(date +%T)"
  "$BM/bin/papshim-run" --emulate-network 1gbit --ranks-per-node 2 -- mpiexec.mpich -n "$p" "$BM/bin/papshim-bench" \
    --suite sweep --bytes 64K,256K,1M,4M --patterns uniform --delays 0,10tau --iterations 20 --warmup 8 \
    --collective reduce --root 0 --algorithms native,binomial,pipelined_binomial,arrival_chain,auto --json "$out.json" \
    > "$out.log" 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
