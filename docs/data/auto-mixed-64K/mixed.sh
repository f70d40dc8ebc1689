#!/bin/bash
# auto's Allgather(v) at 64-128 KiB per rank, p = 8, two ranks per node on four emulated 1 Gbit/s nodes:
# native, ring, Sparbit, Bruck and auto. tag rpn2: before (auto native there), new: the ring from 64 KiB
# (tried), v3: Sparbit from 64 KiB and the ring from 128 KiB (kept). B: the build to measure.
# p and rpn (ranks per node) change the layout (later on 2026-12-01): p8rpn4 and p4rpn2 on bbfc814 (p = 4:
# auto native below 256 KiB), p4rpn2new with the ring and weighed blocks at p = 4 (kAutoMixedClassicMinRanks).
# p16rpn1, p16rpn2: p = 16, one and two ranks per node, on 4b5b1c4; p16rpn2cap: with kAutoMixedRingMaxRanks.
# Summary: python3 ../auto-sparbit-64K/summary.py rpn2 new v3 p8rpn4 p4rpn2 p4rpn2new p16rpn1 p16rpn2 p16rpn2cap p16rpn1big p16rpn2big p16rpn2big2 > summary.txt (in this folder).
# p16rpn2big: p = 16, two per node, bytes=256K,1M: the ring from 256 KiB per rank (87b1483, 2026-12-01 evening);
# p16rpn2big2: its Allgatherv with the two-level model's ring above 128 KiB at any p; p16rpn1big: one per node.
# apploop4.sh: the p = 4 rule in fresh processes (apploop4.txt).
B=${B:-build/openmpi}; tag=${tag:-rpn2}; p=${p:-8}; rpn=${rpn:-2}; bytes=${bytes:-64K,128K}; collectives=${collectives:-allgather allgatherv}
export PAPSHIM_HELPER_THREAD=always
for r in ${runs:-1 2}; do
  for c in $collectives; do
    echo "== $c $r $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node $rpn -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $p \
      --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
      --collective $c --bytes $bytes --patterns uniform,one-late --delays 0,10tau \
      --algorithms native,ring,sparbit,bruck,auto --iterations 40 --warmup 8 --json $tag-$c-$r.json > $tag-$c-$r.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
