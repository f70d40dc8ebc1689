#!/bin/bash
# LAMMPS over the emulated network under PAPSHIM_ALLREDUCE/REDUCE=clairvoyant: before (ed45cac:
# MPI_Init raised to MPI_THREAD_MULTIPLE, helper thread) and after (no upgrade, no thread).
# Archived as run (names of the time): since 2026-11-30 ALLREDUCE=clairvoyant_rs is refused; its form is now
# ALLREDUCE=clairvoyant, and the old ALLREDUCE=clairvoyant is clairvoyant_bcast.
# /tmp/wt-before: a worktree of ed45cac, cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo, targets papshim papshim-bench.
cd /work/main
for r in 1 2 3 4; do  # rounds 1-2 ran with --reps 3 and without the rcb configurations
for b in before after; do
  if [ $b = before ]; then RUN=/tmp/wt-before/build/bin/papshim-run; else RUN=$PWD/build/openmpi/bin/papshim-run; fi
  python3 examples/apps/app_timing.py --wrap "$RUN --emulate-network 1gbit" --mpiexec "mpiexec.openmpi --allow-run-as-root" --np 4 --reps 7 \
    --app "lmp -in examples/lammps/in.lj-melt -var cells 6 -var steps 200 -var every 10 -var balance {variant} -log none" \
    --timer "Loop time of ([0-9.eE+-]+)" --result "^ +200 .*$" \
    --config native:none --config clairvoyant:none:ALLREDUCE=clairvoyant,REDUCE=clairvoyant --config native-rcb:rcb --config clairvoyant-rcb:rcb:ALLREDUCE=clairvoyant,REDUCE=clairvoyant \
    --config clairvoyant_rs:none:ALLREDUCE=clairvoyant_rs \
    --csv /tmp/lmp-$b-$r.csv > /tmp/lmp-$b-$r.txt 2>&1
  echo "$b $r $(date +%T)"
done; done
