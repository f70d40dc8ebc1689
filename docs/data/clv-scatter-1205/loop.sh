#!/bin/bash
# The committed form in a 100-call loop: Allreduce 4 MiB, p = 8, one rank per emulated
# 1 Gbit/s node, one late rank and a staircase at 10 tau, native and the predicted scatter beside.
B=${B:-/tmp/new3}
$B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
  --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 4M \
  --algorithms native,clairvoyant,predicted_scatter --patterns one-late,staircase --delays 10tau \
  --iterations 100 --warmup 8 --json loop-np8-4M.json > loop-np8-4M.log 2>&1 || echo "FAILED rc=$?"
