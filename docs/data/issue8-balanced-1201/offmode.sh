#!/bin/bash
# The 8-byte Reduce at p = 8 on 2 cores, native and auto interleaved, 2000 calls: with papshim in dispatch mode
# (auto's fast path) and with PAPSHIM_MODE=off (the shim forwards every call, no logic), alternating, two each.
# The first loop below wrote small8-*.json (dispatch, Reduce and Allreduce); the second printed the lines in offmode.txt.
B=${B:-/tmp/build-new}
for r in 1 2; do for c in reduce allreduce; do
  mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -x LD_LIBRARY_PATH=$B/lib -n 8 $B/bin/papshim-bench \
    --suite sweep --algorithms native,auto --patterns one-late --delays 0 --warmup 20 --iterations 2000 --collective $c --bytes 8 \
    --json small8-$c-$r.json > small8-$c-$r.log 2>&1
done; done
for mode in off dispatch off dispatch; do
  PAPSHIM_MODE=$mode mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -x PAPSHIM_MODE -x LD_LIBRARY_PATH=$B/lib -n 8 \
    $B/bin/papshim-bench --suite sweep --algorithms native,auto --patterns one-late --delays 0 --warmup 20 --iterations 2000 \
    --collective reduce --bytes 8 > mode-$mode.log 2>&1
  echo "$mode: $(grep -E '^ +auto' mode-$mode.log | awk '{print $4, $5, $11, $12}')"
done
