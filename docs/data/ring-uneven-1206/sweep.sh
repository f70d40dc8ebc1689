#!/bin/bash
# B: an install of 085d7c6 (cmake --install build/openmpi --prefix /tmp/cur), the rule before.
# Where no plan runs: native against papshim's ring Allreduce (and auto, which runs native below
# 1 MiB as committed), balanced (D = 0) and under fresh random delays of 10 tau; one rank per
# emulated 1 Gbit/s node, 20 calls per point after 8, at powers of two and not.
B=${B:-/tmp/cur}
round=${1:-1}
for np in ${NPS:-3 4 5 8 9 10 12}; do
  out=np$np-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 64K,128K,256K,512K,1M \
    --algorithms native,ring,auto --patterns uniform \
    --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
done
echo "== done $(date +%T)"
