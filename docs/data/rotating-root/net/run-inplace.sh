#!/bin/sh
# The rotating root reducing in place from a site of its own (rotating_loop.c ... inplace),
# with a barrier after each Reduce: 60 and 300 Reduces of 1 MiB to root k mod 8 over the
# emulated 1 Gbit/s network, p = 8, every rank computing 5 ms before each call and the last
# rank 84 ms more. Builds, each under its own papshim-run: before (02b0b37: each site's own
# rotation only) and after (this build: the communicator's stream of the signature). Two
# rounds of native, before:auto and after:auto (inplace.txt). Run as root from the repository.
set -u
BEFORE=${BEFORE:-/tmp/wt-before/build}
AFTER=${AFTER:-build/openmpi}
PROG=${PROG:-/tmp/rotating_loop}
for calls in 60 300; do
  for round in 1 2; do
    for run in after:native before:auto after:auto; do
      build=${run%%:*}; algorithm=${run#*:}
      case $build in before) dir=$BEFORE;; after) dir=$AFTER;; esac
      line=$(PAPSHIM_REDUCE=$algorithm $dir/bin/papshim-run --emulate-network 1gbit -- \
        mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 $PROG 1048576 $calls 5 84 barrier inplace 2>/dev/null)
      echo "calls $calls round $round build $build algorithm $algorithm $line"
    done
    [ "$calls" = 300 ] && break
  done
done
