#!/bin/bash
# 100-call loops at this build: MPICH p = 4 Reduce under fresh random delays (the rule's case,
# `auto` against native, the pipelined tree and the chain), and Open MPI p = 8 Allreduce under
# one late rank and a staircase (issue 9's first target, `auto` against native and the
# predicted scatter named). Usage: loops.sh (here).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$here" || exit 1
echo "== mpich-np4-reduce-loop $(date +%T)"
"$root/build/mpich/bin/papshim-run" --emulate-network 1gbit -- mpiexec.mpich -n 4 "$root/build/mpich/bin/papshim-bench" \
  --suite sweep --bytes 256K,1M --patterns uniform --delays 10tau --iterations 100 --warmup 8 --collective reduce \
  --root 0 --algorithms native,pipelined_binomial,arrival_chain,auto --json mpich-np4-reduce-loop.json \
  > mpich-np4-reduce-loop.log 2>&1 || echo "   FAILED rc=$?"
echo "== ompi-np8-allreduce-loop $(date +%T)"
"$root/build/openmpi/bin/papshim-run" --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe \
  --mca mtl ^ofi,psm,psm2 -n 8 "$root/build/openmpi/bin/papshim-bench" --suite sweep --bytes 256K,1M \
  --patterns one-late,staircase --delays 10tau --iterations 100 --warmup 8 --collective allreduce \
  --algorithms native,predicted_scatter,auto --json ompi-np8-allreduce-loop.json \
  > ompi-np8-allreduce-loop.log 2>&1 || echo "   FAILED rc=$?"
echo "== done $(date +%T)"
