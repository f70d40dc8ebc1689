#!/bin/bash
# MPICH across two emulated nodes (a core per rank on this 2-vCPU VM), fresh random delays and
# balanced calls (D = 0): does MPICH's own Reduce/Allreduce lose to papshim's trees without
# oversubscription, as it did at p = 4 (run.sh's mpich-net-np4-*)? Usage: mpich-p2.sh (here).
here=$(cd "$(dirname "$0")" && pwd)
BM=${BM:-$(cd "$here/../../.." && pwd)/build/mpich}
cd "$here" || exit 1
for c in reduce allreduce; do
  algs=native,binomial,pipelined_binomial,arrival_chain,auto extra="--root 0"
  [ $c = allreduce ] && algs=native,recursive_doubling,ring,arrival_chain,auto extra=
  out=mpich-net-np2-$c
  echo "== $out $(date +%T)"
  "$BM/bin/papshim-run" --emulate-network 1gbit -- mpiexec.mpich -n 2 "$BM/bin/papshim-bench" --suite sweep \
    --bytes 64K,256K,1M,4M --patterns uniform --delays 0,10tau --iterations 20 --warmup 8 \
    --collective $c $extra --algorithms $algs --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
