#!/bin/bash
# Where no plan runs at p = 5, 6, 7 (non-powers of two): native against papshim's classic
# Allreduces, the arrival chain and Clairvoyant's, balanced (D = 0) and under fresh random delays
# of 10 tau; one rank per emulated 1 Gbit/s node, 20 calls per point after 8.
B=${B:-/tmp/new}
round=${1:-1}
for np in 5 6 7; do
  out=np$np-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 128K,256K,512K,1M \
    --algorithms native,ring,recursive_doubling,rabenseifner,arrival_chain,clairvoyant,auto --patterns uniform \
    --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
done
echo "== done $(date +%T)"
