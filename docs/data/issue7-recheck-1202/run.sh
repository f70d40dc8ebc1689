#!/bin/bash
# Issue 7's targets re-checked at the session's last build (2026-12-02): p = 8, one rank per emulated node, 1 Gbit/s.
# A fresh short run per point (20 calls after 8) and one 100-call loop for (a)(b); then (c) Allgatherv 1 MiB mean
# block (rank 0 late, staircase), (d) 64 KiB, (e) fresh random delays and (f) balanced, 20 calls each.
B=${B:-/tmp/m11}   # a copy of build/openmpi at 6cc31f6 (behaviour of this session's last commit)
export PAPSHIM_HELPER_THREAD=always
run() {  # name collective bytes patterns delays algorithms iterations
  echo "== $1 $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD $B/bin/papshim-bench --suite sweep \
    --collective $2 --bytes $3 --patterns $4 --delays $5 --algorithms $6 --iterations $7 --warmup 8 \
    --json $1.json > $1.log 2>&1 || echo "   FAILED rc=$?"
}
run ag1M-short allgather 1M one-late,staircase 10tau native,ring,bdr,auto 20
run ag1M-long allgather 1M one-late,staircase 10tau native,ring,bdr,auto 100
run agv1M-short allgatherv 1M one-late:0,staircase 10tau native,ring,sparbit,bdr,auto 20
run ag64K-short allgather 64K one-late,staircase 10tau native,ring,sparbit,bdr,auto 20
run random-short allgather 64K,1M uniform 0,10tau native,ring,sparbit,bruck,auto 20
echo "== done $(date +%T)"
