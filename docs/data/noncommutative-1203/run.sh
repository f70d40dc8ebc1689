#!/bin/bash
# A Reduce with a non-commutative op (MPI_INT's sum declared non-commutative: papshim-bench --op ordered),
# p = 8, one rank per emulated 1 Gbit/s node, Open MPI: native, the whole-vector tree in rank order (what auto ran
# for such an op until this change), the pipelined tree in rank order (what it runs now) and auto.
# Usage: run.sh ROUND [ROOT...]  (default roots 0 and rotate)
B=${B:-/work/main/build/openmpi}
round=${1:-1}; shift
for root in ${*:-0 rotate}; do
  tag=np8-root$root-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --op ordered --root $root \
    --bytes 256K,1M,4M --algorithms native,binomial,pipelined_binomial,auto --patterns one-late,uniform \
    --delays 0,10tau --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
