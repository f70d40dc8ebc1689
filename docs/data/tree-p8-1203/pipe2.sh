#!/bin/bash
# The pipelined tree at p = 4 and 6 (one rank per node; Open MPI runs a linear Reduce there
# at 256-512 KiB and from 1 MiB) and p = 8 with two ranks per node, rotating root, with auto
# (which runs it where no plan runs since this change), emulated 1 Gbit/s (2026-12-03).
# Usage: pipe2.sh ROUND [BUILD]
B=${2:-/tmp/m05}
round=${1:-1}
for case in 4:1 6:1 8:2; do
  IFS=: read np rpn <<< "$case"
  tag=pipe2-np$np-rpn$rpn-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node $rpn -- mpiexec.openmpi --allow-run-as-root \
    --oversubscribe -n $np --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce \
    --bytes ${BYTES:-256K,1M,4M} --root rotate --patterns one-late,staircase,uniform --delays 0,10tau \
    --algorithms native,binomial,pipelined_binomial,auto --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 \
    || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
