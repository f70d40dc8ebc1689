#!/usr/bin/env bash
# Staircase and one-late runs of BDR and the ring (p = 8, 1 MiB, 10 tau, emulated 1 Gbit/s)
# with the network's counters: does a run's count of BDR's slow calls follow its TCP
# retransmission timeouts? Each job runs one algorithm set, so a job's counters are its own.
# Usage (from the repository, Open MPI build in build/openmpi): run.sh TAG ALGORITHMS PATTERNS
set -euo pipefail
tag=$1 algorithms=$2 patterns=$3
out=$(dirname "$0")
build/openmpi/bin/papshim-run --emulate-network 1gbit --network-stats "$out/$tag.csv" -- \
    mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 build/openmpi/bin/papshim-bench \
    --suite sweep --collective allgather --bytes 1M --algorithms "$algorithms" \
    --patterns "$patterns" --delays 10tau --iterations 20 --warmup 8 --json "$out/$tag.json" \
    >"$out/$tag.txt" 2>&1
