#!/bin/bash
# Clairvoyant's reduce-scatter form on MPICH (16 KiB buffered): whole 48 KiB segments (old:
# /tmp/p2x-mpich, HEAD's Clairvoyant) against segments in thirds (new: build/mpich).
# usage: clv.sh NAME BUILD NP
cd /work/main
$2/bin/papshim-run --emulate-network 1gbit -- mpiexec.mpich -n $3 $2/bin/papshim-bench --suite sweep --collective allreduce \
  --bytes 256K,1M,4M --patterns one-late,staircase --delays 10tau --iterations 20 --warmup 8 \
  --algorithms native,clairvoyant,predicted_scatter --json /tmp/p2r/$1.json > /tmp/p2r/$1.log 2>&1
echo "$1 rc=$? $(date +%T)"
