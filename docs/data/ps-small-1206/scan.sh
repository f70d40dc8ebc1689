#!/bin/bash
# Predicted scatter with chunks of at least PSX_CHUNK_KIB (0: 4 chunks a piece at least, as committed).
B=${B:-/tmp/psx}  # the scratch build, whose PSX_CHUNK_KIB set the least chunk size
round=${1:-1}
for np in ${NPS:-8 4}; do
 for kib in 0 32; do
  out=np$np-kib$kib-r$round
  echo "== $out $(date +%T)"
  PSX_CHUNK_KIB=$kib $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -x PSX_CHUNK_KIB -n $np $B/bin/papshim-bench --suite sweep \
      --collective allreduce --bytes ${BYTES:-128K,256K,384K,512K,1M} --algorithms native,clairvoyant,predicted_scatter --patterns one-late,staircase \
      --delays 10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
 done
done
echo "== done $(date +%T)"
