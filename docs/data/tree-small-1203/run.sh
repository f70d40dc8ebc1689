#!/bin/bash
# Whether auto's Reduce should run the pipelined binomial tree (16 KiB pieces) below 256 KiB
# and at p = 3, where it runs Open MPI's own Reduce (2026-12-03): papshim-bench, emulated
# 1 Gbit/s, one rank per node, rotating root, 20 calls after 8, 32 KiB to 256 KiB,
# balanced, one late rank and fresh random delays of 10 tau.
# Usage: run.sh ROUND [BUILD]   (from this directory; BUILD defaults to build/openmpi)
B=${2:-$(cd ../../.. && pwd)/build/openmpi}
round=${1:-1}
for np in ${NPS:-3 4 8}; do
  tag=np$np-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --bytes ${BYTES:-32K,64K,128K,256K} \
    --root ${ROOT:-rotate} --patterns one-late,uniform --delays 0,10tau \
    --algorithms native,binomial,pipelined_binomial,auto --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 \
    || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
