#!/bin/bash
# The predicted scatter Allreduce at 64 KiB (2026-12-06, a lead): Open MPI, emulated 1 Gbit/s one
# rank per node, p = 4 and 8, balanced and one late rank / staircase / fresh random delays of 2, 6
# and 10 vector times, native against the scatter and Clairvoyant named and `auto` (native there).
B=${B:-build/openmpi}
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
for round in ${ROUNDS:-1 2}; do
  for np in 4 8; do
    echo "== np$np r$round $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench --suite sweep \
      --collective allreduce --bytes 64K --algorithms native,predicted_scatter,clairvoyant,auto \
      --patterns one-late,staircase,uniform --delays 0,2tau,6tau,10tau --iterations 20 --warmup 8 \
      --json ar64-np$np-r$round.json > ar64-np$np-r$round.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
