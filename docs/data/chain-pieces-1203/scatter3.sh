#!/bin/bash
# The predicted scatter's chunks: 4 per piece (OLD), pieces of 16 KiB (V16) and of 48 KiB
# (V48, at least 4), with the predicted chain beside (16 pieces per vector in OLD and V48, 16 KiB
# in V16); Allreduce, p = 8, one rank per node, emulated 1 Gbit/s, 10 tau. Usage: scatter3.sh ROUND
OLD=${OLD:-/tmp/base} V16=${V16:-/tmp/new} V48=${V48:-/tmp/v2} NP=${NP:-8}
round=${1:-1}
for B in $OLD $V16 $V48; do
  tag=scatter-np$NP-$(case $B in $OLD) echo old;; $V16) echo v16;; *) echo v48;; esac)-r$round
  echo "== $tag $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $NP \
    --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 1M,2M,4M \
    --algorithms native,predicted_scatter,predicted_chain --patterns one-late,staircase --delays 10tau \
    --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
