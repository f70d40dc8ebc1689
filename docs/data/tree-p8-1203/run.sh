#!/bin/bash
# Where papshim's unsegmented binomial tree (what auto's Reduce runs wherever no plan runs, one rank per
# node) wins or loses against Open MPI's Reduce at p = 8 under imbalance (2026-12-03): papshim-bench,
# emulated 1 Gbit/s, one rank per node, 10 tau, 20 calls after 8, root 0 and rotating, 256 KiB to 4 MiB.
# Usage: run.sh ROUND [BUILD]
B=${2:-/tmp/m01}
round=${1:-1}
for root in rotate 0; do
  tag=np8-root$root-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --bytes 256K,512K,1M,4M \
    --root $root --patterns one-late,staircase,uniform --delays 10tau --algorithms native,binomial,auto \
    --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
