#!/bin/bash
# Issue 7 (e)/(f) at 64 and 128 KiB per rank, p = 8 across nodes: 100-call loops, fresh random delays (uniform) at
# 10tau and balanced, native, ring, Sparbit, Bruck and auto; the new build (auto runs Sparbit there).
B=${B:-/tmp/build-new}
export PAPSHIM_HELPER_THREAD=always
for r in 1 2; do
  for c in allgather allgatherv; do
    echo "== loop $c $r $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
      --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
      --collective $c --bytes 64K,128K --patterns uniform --delays 0,10tau --algorithms native,ring,sparbit,bruck,auto \
      --iterations 100 --warmup 8 --json loop-$c-$r.json > loop-$c-$r.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
