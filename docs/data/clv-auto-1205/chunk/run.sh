#!/bin/bash
# B: an install of a scratch build (not committed) whose Clairvoyant Allreduce cut its vector
# into segments of EXPCHUNK bytes (registry.cpp's segments_for_bytes; 48 KiB is predicted_scatter_segments)
B=/tmp/expchunk
for r in 1 2; do
for c in 49152 24576 16384 98304; do
  echo "== c$c r$r $(date +%T)"
  EXPCHUNK=$c $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x EXPCHUNK $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 256K,1M \
    --algorithms native,clairvoyant,predicted_scatter --patterns one-late,staircase --delays 10tau \
    --iterations 20 --warmup 8 --json c$c-r$r.json > c$c-r$r.log 2>&1 || echo FAILED
done; done
echo "== done $(date +%T)"
