#!/bin/bash
# p = 4: the least chunk size 32 KiB (as committed) against 64 KiB, which cuts 256 KiB into
# 2 chunks a piece instead of 3 and 384 KiB into 3 instead of 4 (the scratch build of scan.sh).
B=${B:-/tmp/psx}
round=${1:-1}
for kib in 32 64; do
  out=p4-kib$kib-r$round
  echo "== $out $(date +%T)"
  PSX_CHUNK_KIB=$kib $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root \
    --oversubscribe --mca mtl ^ofi,psm,psm2 -x PSX_CHUNK_KIB -n 4 $B/bin/papshim-bench --suite sweep \
    --collective allreduce --bytes 256K,384K --algorithms native,clairvoyant,predicted_scatter \
    --patterns one-late,staircase --delays 10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 \
    || echo "   FAILED rc=$?"
done
