#!/bin/bash
# random_loop.c under native and auto alternating, fresh processes, one rank per emulated
# node at 1 Gbit/s: Allgather and Allgatherv (equal blocks), 64 and 128 KiB per rank,
# balanced (D = 0) and fresh random delays of up to 10 tau (tau = 0.55 ms per 64 KiB here).
# Run from the repository root as root; prints one line per run.
B=build/openmpi/bin
PROGRAM=${PROGRAM:-/tmp/dbg/random_loop}
CALLS=${CALLS:-200}
for ranks in 8 4; do
for bytes in 65536 131072; do
  tau_ms=$(( bytes / 65536 ))  # 0.55 ms per 64 KiB, so 10 tau = 5.5 ms per 64 KiB
  for d in 0 $(echo "0.0055 * $tau_ms" | bc -l); do
  for v in "" v; do
  for round in 1 2 3; do
  for algorithm in native auto; do
    line=$(PAPSHIM_ALLGATHER=$algorithm PAPSHIM_ALLGATHERV=$algorithm $B/papshim-run --emulate-network 1gbit -- \
      mpiexec.openmpi --allow-run-as-root --oversubscribe -n $ranks $PROGRAM $bytes $CALLS $d $v 2>&1 | grep '^e ')
    echo "p=$ranks bytes=$bytes D=$d ${v:+allgatherv} round=$round $algorithm $line"
  done; done; done; done; done; done
