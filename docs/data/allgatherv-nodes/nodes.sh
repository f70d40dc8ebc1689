#!/bin/bash
# auto's Allgatherv of far-from-equal blocks with two ranks per node on emulated 1 Gbit/s nodes:
# native, ring, Sparbit, Bruck and auto (which weighs the ring with the two-level model since
# 2026-12-01), papshim-bench's block layouts, 64 KiB and 1 MiB per rank. B: the build to measure.
# Summary: python3 summary.py > summary.txt (in this folder). p8-spike-countshare-*: spike runs of the first
# version (the model shared a node port as bytes times the number of messages), where auto ran the ring.
B=${B:-build/openmpi}; p=${p:-8}; sizes=${sizes:-64K,1M}
export PAPSHIM_HELPER_THREAD=always
for r in ${runs:-1 2}; do
  for blocks in ${layouts:-decreasing half-full spike geometric}; do
    echo "== p$p $blocks $r $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node 2 -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $p \
      --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
      --collective allgatherv --blocks $blocks --bytes $sizes --patterns uniform,one-late --delays 0,10tau \
      --algorithms native,ring,sparbit,bruck,auto --iterations ${iterations:-30} --warmup 6 \
      --json p$p-$blocks-$r.json > p$p-$blocks-$r.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
