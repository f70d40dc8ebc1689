#!/bin/bash
# OLD: an install of 085d7c6, NEW: of the rule's commit (cmake --install build/openmpi --prefix DIR).
# The committed rule against the build before it, alternating: auto and native (and the ring
# named) under every pattern, balanced and at 10 tau; one rank per emulated 1 Gbit/s node.
OLD=${OLD:-/tmp/cur}; NEW=${NEW:-/tmp/nring}
round=${1:-1}
run() { np=$1; bytes=$2
  for b in new old; do
    B=$([ $b = new ] && echo $NEW || echo $OLD); out=np$np-$b-r$round
    echo "== $out $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes $bytes \
      --algorithms native,ring,auto --patterns uniform,one-late,staircase \
      --delays 0,10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "FAILED $out rc=$?"
  done
}
run 3 256K,512K,2M
run 6 256K,512K
run 9 384K,512K
run 12 512K,768K
echo "== done $(date +%T)"
