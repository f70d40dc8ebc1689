#!/bin/bash
# auto's Allgather(v) at 64 and 128 KiB per rank since 583b6f3 (sampled spread -> ring):
# p = 8, one rank per emulated node, 1 Gbit/s, native, ring, Sparbit and auto interleaved.
# Run from the repository root as root; writes the JSON files next to this script.
set -e
B=build/openmpi/bin
OUT=docs/data/auto-ring-64K
NET="$B/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8"
for r in a b; do
for coll in allgather allgatherv; do
  $NET $B/papshim-bench --suite sweep --collective $coll --bytes 64K,128K \
    --algorithms native,ring,sparbit,auto --patterns uniform,one-late,staircase --delays 0,10tau,40tau \
    --iterations 30 --warmup 8 --json $OUT/$coll-$r.json > $OUT/$coll-$r.txt 2>&1
  echo "$coll $r done $(date +%T)"
done; done
