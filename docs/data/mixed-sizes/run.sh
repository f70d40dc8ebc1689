#!/bin/sh
# mixed_loop.c over the emulated 1 Gbit/s network, p = 8 (one rank per emulated node): 60
# iterations of a 1 MiB Allreduce then a 64 KiB one (SMALL 65536), or the 1 MiB one alone
# (SMALL 0); every rank computes 5 ms before each iteration, the last rank 84 ms more (10 tau
# at 1 MiB). Builds, each under its own papshim-run: before (02b0b37: plans numbered by every
# call papshim handles) and after (this build: by the calls it follows). Two rounds
# (run.txt). Run as root from the repository; PROG=mpicc.openmpi -O2 of mixed_loop.c.
set -u
BEFORE=${BEFORE:-/tmp/wt-before/build}
AFTER=${AFTER:-build/openmpi}
PROG=${PROG:-/tmp/mixed_loop}
for round in 1 2; do
  for run in 65536:after:native 65536:before:auto 65536:after:auto 0:after:native 0:before:auto 0:after:auto; do
    small=${run%%:*}; rest=${run#*:}; build=${rest%%:*}; algorithm=${rest#*:}
    case $build in before) dir=$BEFORE;; after) dir=$AFTER;; esac
    line=$(PAPSHIM_ALLREDUCE=$algorithm $dir/bin/papshim-run --emulate-network 1gbit -- \
      mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 $PROG 1048576 $small 60 5 84 2>/dev/null)
    echo "round $round small $small build $build algorithm $algorithm $line"
  done
done
