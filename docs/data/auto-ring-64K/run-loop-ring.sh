#!/bin/bash
# random_loop.c at p = 8 (one rank per emulated node, 1 Gbit/s) under fresh random delays of
# up to 10 tau: native, the ring named and auto alternating, fresh processes, three rounds.
# Run from the repository root as root; prints one line per run.
B=build/openmpi/bin
PROGRAM=${PROGRAM:-/tmp/dbg/random_loop}
for bytes in 65536 131072; do
  d=$(echo "0.0055 * $(( bytes / 65536 ))" | bc -l)
  for v in "" v; do
  for round in 1 2 3; do
  for algorithm in native ring auto; do
    line=$(PAPSHIM_ALLGATHER=$algorithm PAPSHIM_ALLGATHERV=$algorithm $B/papshim-run --emulate-network 1gbit -- \
      mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 $PROGRAM $bytes 200 $d $v 2>&1 | grep '^e ')
    echo "p=8 bytes=$bytes D=$d ${v:+allgatherv} round=$round $algorithm $line"
  done; done; done; done
