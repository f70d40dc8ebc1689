#!/bin/bash
# papshim's binomial tree whole (binomial) and in 16 pieces (pipelined_binomial) against Open MPI's Reduce,
# p = 8, emulated 1 Gbit/s, one rank per node, balanced and 10 tau, 20 calls after 8 (2026-12-03).
# Usage: pipe.sh ROUND [BUILD]
B=${2:-/tmp/m02}
round=${1:-1}
for root in rotate 0; do
  tag=pipe-np8-root$root-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --bytes ${BYTES:-256K,1M,4M} \
    --root $root --patterns one-late,staircase,uniform --delays 0,10tau \
    --algorithms native,binomial,pipelined_binomial --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 \
    || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
