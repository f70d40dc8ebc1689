#!/bin/bash
# A 100-call loop a point with one-off stalls (2026-12-07): the Allreduce at p = 8, 512 KiB and
# 1 MiB, one late rank and a staircase of 10tau, --hiccups 10:150ms, emulated 1 Gbit/s one rank
# per node, Open MPI; native, the predicted scatter and auto. Usage: long.sh NAME BUILD_DIR
name=$1 B=$2
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
echo "== $name $(date +%T) $B"
$B/bin/papshim-run --emulate-network 1gbit -- $ompi -n 8 $B/bin/papshim-bench --suite sweep --collective allreduce \
  --bytes 512K,1M --patterns one-late,staircase --delays 10tau --iterations 100 --warmup 8 --hiccups 10:150ms \
  --algorithms native,predicted_scatter,auto --json /tmp/lt/$name.json > /tmp/lt/$name.log 2>&1 || echo "   FAILED rc=$?"
