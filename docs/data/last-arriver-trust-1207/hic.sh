#!/bin/bash
# The guard's trust in the last arriver alone (2026-12-07): one build's Allreduce under one late
# rank and a staircase of 10tau with one-off stalls (--hiccups), emulated 1 Gbit/s one rank per
# node, Open MPI (MPI=mpich: MPICH); native, the predicted scatter and auto interleaved per call.
# Usage: [MPI=mpich] hic.sh NAME BUILD_DIR NP BYTES [HICCUPS (default 10:150ms)] [PATTERNS]
name=$1 B=$2 np=$3 bytes=$4 hic=${5:-10:150ms} pats=${6:-one-late,staircase}
launch="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
[ "${MPI:-openmpi}" = mpich ] && launch=mpiexec.mpich
echo "== $name $(date +%T) $B np=$np $bytes hiccups=$hic"
$B/bin/papshim-run --emulate-network 1gbit -- $launch -n $np $B/bin/papshim-bench --suite sweep --collective allreduce \
  --bytes $bytes --patterns $pats --delays 10tau --iterations 40 --warmup 8 --hiccups $hic \
  --algorithms native,predicted_scatter,auto --json /tmp/lt/$name.json > /tmp/lt/$name.log 2>&1 || echo "   FAILED rc=$?"
