#!/bin/sh
# The rotating root reducing in place from a site of its own (rotating_loop.c ... inplace,
# ../rotating-root/net/), a barrier after each Reduce, 60 Reduces to root k mod p over the
# emulated 1 Gbit/s network, one rank per emulated node: every rank computes 5 ms before each
# call and the last rank 10 tau more (21 ms at 256 KiB, 84 ms at 1 MiB). Builds, each under
# its own papshim-run: BEFORE (8a1ba6d: the root's site learnt apart), REMAP (fbb1a26: the
# root's calls learnt as the loop's) and AFTER (REMAP + the prediction from the entry where
# it missed less than the one from the exit). Native, then `auto` with each build,
# interleaved, ROUNDS rounds; BUILDS picks the builds (remap-only.txt: before and remap only,
# AFTER being fbb1a26 there). Run as root from the repository; one line per run (run.txt).
set -u
BEFORE=${BEFORE:-/tmp/old/build}
REMAP=${REMAP:-/tmp/m13}
AFTER=${AFTER:-build/openmpi}
BUILDS=${BUILDS:-before remap after}
PROG=${PROG:-/tmp/rotating_loop}
ROUNDS=${ROUNDS:-2}
round=1
while [ $round -le $ROUNDS ]; do
  for p in 4 8; do
    for size in 262144:21 1048576:84; do
      bytes=${size%%:*}; late=${size#*:}
      for run in after:native $(for b in $BUILDS; do echo $b:auto; done); do
        build=${run%%:*}; algorithm=${run#*:}
        case $build in before) dir=$BEFORE;; remap) dir=$REMAP;; after) dir=$AFTER;; esac
        line=$(PAPSHIM_REDUCE=$algorithm $dir/bin/papshim-run --emulate-network 1gbit -- \
          mpiexec.openmpi --allow-run-as-root --oversubscribe -n $p $PROG $bytes 60 5 $late barrier inplace 2>/dev/null)
        echo "round $round p $p bytes $bytes build $build algorithm $algorithm $line"
      done
    done
  done
  round=$((round + 1))
done
