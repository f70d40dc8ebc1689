#!/bin/sh
# rotating_loop.c over the emulated 1 Gbit/s network, p = 8 (one rank per emulated node):
# 60 Reduces of 1 MiB, root k mod 8, every rank computing 5 ms before each and the last rank
# 84 ms more (10 tau at 1 MiB), "free" and "barrier" (see the program). Builds, each under its
# own papshim-run: norot (fc4433e with CommHistory(0): the root's rotation not predicted), rot
# (fc4433e), split (27da2ce: rot + the compute interval after a root call learnt apart).
# Two rounds, the builds alternating within each; native once per round and mode. The lines
# labelled split-unguarded in loop.txt ran the split without its rule (compute_series), an
# intermediate state never committed: `run-loop.sh` gives the rest, `run-loop.sh split` the
# committed split's lines (loop-split.txt).
set -u
NOROT=${NOROT:-/tmp/wt-norot/build}
ROT=${ROT:-/tmp/wt-rot/build}
SPLIT=${SPLIT:-build/openmpi}
PROG=${PROG:-/tmp/rotating_loop}
runs="split:native norot:auto rot:auto split:auto norot:clairvoyant rot:clairvoyant split:clairvoyant"
[ "${1:-}" = split ] && runs="split:native split:auto split:clairvoyant"
for round in 1 2; do
  for mode in free barrier; do
    for run in $runs; do
      build=${run%%:*}; algorithm=${run#*:}
      case $build in norot) dir=$NOROT;; rot) dir=$ROT;; split) dir=$SPLIT;; esac
      line=$(PAPSHIM_REDUCE=$algorithm $dir/bin/papshim-run --emulate-network 1gbit -- \
        mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 $PROG 1048576 60 5 84 $mode 2>/dev/null)
      echo "round $round mode $mode build $build algorithm $algorithm $line"
    done
  done
done
