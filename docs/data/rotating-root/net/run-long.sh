#!/bin/sh
# The steady state of a long loop at 27da2ce/7f09ed8 (this build): rotating_loop.c with a
# barrier, 300 Reduces of 1 MiB, native and auto alternating, two rounds (loop-long.txt);
# and papshim-bench --root rotate at 1 MiB, one late rank, 100 calls after 8 warm-up calls
# (long-bench.json, .txt). Run as root from the repository; PROG as in run-loop.sh.
set -u
PROG=${PROG:-/tmp/rotating_loop}
out=docs/data/rotating-root/net
B=build/openmpi/bin
for round in 1 2; do
  for algorithm in native auto; do
    line=$(PAPSHIM_REDUCE=$algorithm $B/papshim-run --emulate-network 1gbit -- \
      mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 $PROG 1048576 300 5 84 barrier 2>/dev/null)
    echo "round $round mode barrier calls 300 algorithm $algorithm $line"
  done
done > $out/loop-long.txt
$B/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
  $B/papshim-bench --suite sweep --collective reduce --root rotate --bytes 1M --algorithms native,auto \
  --patterns one-late --delays 10tau --iterations 100 --warmup 8 --json $out/long-bench.json > $out/long-bench.txt
