#!/usr/bin/env bash
# Clairvoyant's three schedulers on [CLV] §5.7's instances (spec §5.3; docs/simulator.md,
# "Clairvoyant's schedulers: the scheduler-only benchmark"): the reference, the segment tree
# and the per-segment queues of the paper's pairing-heap version. 250 instances per row to
# P = 128, 50 at 256, 10 at 512 (the queues take seconds per plan there). Single-threaded;
# times are the thread's CPU time.
set -euo pipefail
cd "$(dirname "$0")/../../.."
sim=build/openmpi/bin/papshim-sim
out=docs/data/clv-queues-1203
$sim --scheduler-bench 4,8,16,32,64,128 --runs 250 | tee $out/p4-128-r250.txt
$sim --scheduler-bench 256 --runs 50 | tee $out/p256-r50.txt
$sim --scheduler-bench 512 --runs 10 | tee $out/p512-r10.txt
$sim --scheduler-bench 1024,4096 --bench-segments papshim --runs 10 | tee $out/papshim-n-r10.txt
