#!/bin/bash
# The predicted chain Reduce below 256 KiB under auto's spread rule (2026-12-06): Open MPI,
# emulated 1 Gbit/s one rank per node, p = 8 and 4, 64 and 128 KiB, root 0, balanced and one late
# rank / staircase / fresh random delays of 2, 6 and 10 vector times; rounds 1-4 (ROUNDS).
B=${B:-build/openmpi}
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -x PAPSHIM_VERBOSE=1"
for round in ${ROUNDS:-1 2}; do
  for np in 8 4; do
    echo "== np$np r$round $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench --suite sweep \
      --collective reduce --root 0 --bytes 64K,128K --algorithms native,pipelined_binomial,predicted_chain,auto \
      --patterns one-late,staircase,uniform --delays 0,2tau,6tau,10tau --iterations 20 --warmup 8 \
      --json np$np-r$round.json > np$np-r$round.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
