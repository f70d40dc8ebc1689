#!/usr/bin/env bash
# BDR alone in a long loop (150 measured calls after 20 warm-up calls), with the network's
# counters: do its stalled calls come with TCP retransmission timeouts?
# Usage (from the repository): long.sh TAG PATTERN
set -euo pipefail
tag=$1 pattern=$2
out=$(dirname "$0")
build/openmpi/bin/papshim-run --emulate-network 1gbit --network-stats "$out/$tag.csv" -- \
    mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 build/openmpi/bin/papshim-bench \
    --suite sweep --collective allgather --bytes 1M --algorithms bdr --patterns "$pattern" \
    --delays 10tau --iterations 150 --warmup 20 --json "$out/$tag.json" >"$out/$tag.txt" 2>&1
