#!/bin/sh
# papshim-bench's Reduce with a rotating root (--root rotate) over the emulated 1 Gbit/s
# network, p = 8, one rank per emulated node, 256 KiB and 1 MiB, one late rank and a staircase
# at 10 tau. Three builds, each under its own papshim-run (which preloads that build's
# library): NOROT, fc4433e with CommHistory(0) in the planner (the root's rotation not
# predicted); ROT, fc4433e; SPLIT, 27da2ce (the compute interval after a root call
# learnt apart). Run as root from the repository:  run.sh two | three
set -eu
NOROT=${NOROT:-/tmp/wt-norot/build}
ROT=${ROT:-/tmp/wt-rot/build}
SPLIT=${SPLIT:-build/openmpi}
out=docs/data/rotating-root/net
dir_of() { case $1 in norot) echo $NOROT;; rot) echo $ROT;; split) echo $SPLIT;; esac; }
bench() {  # build file algorithms iterations
  dir=$(dir_of $1)
  $dir/bin/papshim-run --emulate-network 1gbit -- \
    mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 $dir/bin/papshim-bench \
    --suite sweep --collective reduce --root rotate --bytes 256K,1M \
    --algorithms $3 --patterns one-late,staircase --delays 10tau \
    --iterations $4 --warmup 8 --json $out/$2.json > $out/$2.txt
}
case ${1:-two} in
  two)  # norot against rot, four algorithms, alternating, two rounds: {norot,rot}-{1,2}
    for round in 1 2; do
      for build in norot rot; do bench $build $build-$round native,auto,clairvoyant,binomial 20; done
    done;;
  three)  # rot against split with three algorithms (three-split-*-unguarded: the split
          # without its rule, never committed) (see docs/benchmarks.md: with two or four,
          # numbers that divide p = 8, the bench's rotated order gives a communicator's calls
          # compute intervals of period 2 or 4, which a rank's root calls sample at one phase)
    for round in 1 2; do
      for build in rot split; do bench $build three-$build-$round native,auto,clairvoyant 24; done
    done;;
esac
