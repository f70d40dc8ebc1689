#!/bin/bash
# The predicted scatter at 64 KiB under auto (experiment): Open MPI, emulated 1 Gbit/s, one
# rank per node, D = 0, 3tau, 10tau, one late rank / staircase / fresh random delays.
# Usage: small.sh NAME NP [BUILD]
cd /work/main
B=${3:-build/openmpi}
$B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n $2 \
  $B/bin/papshim-bench --suite sweep --collective allreduce --bytes ${BYTES:-64K} --patterns one-late,staircase,uniform \
  --delays 0,3tau,10tau --iterations 20 --warmup 8 --algorithms native,predicted_scatter,arrival_chain,auto --json /tmp/m9/$1.json > /tmp/m9/$1.log 2>&1
echo "$1 rc=$?"
