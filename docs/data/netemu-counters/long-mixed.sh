#!/usr/bin/env bash
# The long loop of docs/benchmarks.md "BDR in a long loop with CUBIC" (native, ring and BDR
# interleaved, one-late and staircase, 150 measured calls after 20 warm-up calls), with the
# network's counters. Usage (from the repository): long-mixed.sh TAG
set -euo pipefail
tag=$1
out=$(dirname "$0")
build/openmpi/bin/papshim-run --emulate-network 1gbit --network-stats "$out/$tag.csv" -- \
    mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 build/openmpi/bin/papshim-bench \
    --suite sweep --collective allgather --bytes 1M --algorithms native,ring,bdr \
    --patterns one-late,staircase --delays 10tau --iterations 150 --warmup 20 \
    --json "$out/$tag.json" >"$out/$tag.txt" 2>&1
