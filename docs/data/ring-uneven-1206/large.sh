#!/bin/bash
# B: an install of 3ed0c5b or later. Larger p, one rank per emulated 1 Gbit/s node: native, the
# ring and auto at 512 KiB-2 MiB, balanced and at 10 tau, 20 calls after 8 (the 1 MiB cap).
B=${B:-/tmp/nring2}
round=${1:-1}
for np in ${NPS:-16 20 24}; do
  out=np$np-r$round
  echo "== $out $(date +%T)"
  timeout 900 $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 512K,1M,2M \
    --algorithms native,ring,auto --patterns uniform \
    --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
done
echo "== done $(date +%T)"
