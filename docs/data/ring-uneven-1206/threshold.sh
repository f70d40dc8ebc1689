#!/bin/bash
# B: an install of 085d7c6 (cmake --install build/openmpi --prefix /tmp/cur), the rule before.
# The ring's threshold by p: native, the ring and auto at sizes between 192 KiB and 768 KiB.
B=${B:-/tmp/cur}
round=${1:-1}
run() { np=$1; bytes=$2; out=np$np-r$round
  echo "== $out $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes $bytes \
    --algorithms native,ring,auto --patterns uniform \
    --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
}
run 7 192K,224K,256K
run 9 320K,384K,512K
run 11 320K,384K,512K,768K
run 12 320K,384K,512K,768K
run 14 384K,512K,768K,1M
echo "== done $(date +%T)"
