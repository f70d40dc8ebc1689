#!/usr/bin/env python3
"""Writes a synthetic papshim trace (calls.csv + meta.txt, docs/trace-format.md) for trying
papshim-report without running MPI: an iterative program on 4 ranks with an Allreduce and an
Allgather per iteration at two call sites, where rank 2 is about 5 ms late in 90% of calls.

usage: synthetic_trace.py DIR [--iterations N] [--ranks P] [--seed S]
"""
import argparse
import csv
import os
import random

LATE_RANK = 2
LATE_S = 5e-3
LATE_PROBABILITY = 0.9
ALPHA_S = 1.2e-6
BETA_S_PER_BYTE = 2.1e-10

SITES = [
    # collective, bytes (result on one rank), op, call site, function, location, compute before
    ("allreduce", 8192, "MPI_SUM", "synth_app+0x1a2c", "compute_step", "synth.c:42", 10e-3),
    ("allgather", 4 * 4096, "", "synth_app+0x1b80", "exchange_halo", "synth.c:77", 4e-3),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ranks = args.ranks
    os.makedirs(args.dir, exist_ok=True)

    rows = []
    exits = [1e-3] * ranks  # everybody leaves MPI_Init's barrier at about 1 ms
    seq = 0
    for _ in range(args.iterations):
        for collective, size, op, site, function, location, compute in SITES:
            arrivals = []
            for rank in range(ranks):
                work = compute * rng.uniform(0.98, 1.02) + rng.expovariate(1 / 50e-6)
                if rank == LATE_RANK and rng.random() < LATE_PROBABILITY:
                    work += rng.gauss(LATE_S, 0.3e-3)
                arrivals.append(exits[rank] + work)
            cost = ALPHA_S * 6 + BETA_S_PER_BYTE * size * 2
            done = max(arrivals) + cost
            exits = [done + rng.uniform(0, 20e-6) for _ in range(ranks)]
            for rank in range(ranks):
                rows.append([rank, rank, "world", ranks, seq, collective, size, -1, op,
                             "native", site, function, location,
                             f"{arrivals[rank]:.9f}", f"{exits[rank]:.9f}"])
            seq += 1
    rows.sort(key=lambda row: float(row[13]))

    with open(os.path.join(args.dir, "calls.csv"), "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["rank", "world_rank", "comm", "comm_size", "seq", "collective", "bytes",
                      "root", "op", "algorithm", "callsite", "function", "location",
                      "arrival_s", "exit_s"])
        out.writerows(rows)
    with open(os.path.join(args.dir, "meta.txt"), "w") as f:
        f.write("papshim_version=0.1.0\nmpi=openmpi\n")
        f.write(f"world_size={ranks}\nmode=profile\ncallsite_depth=1\n")
        # meta.txt has no comments: the network line says what the link figures are.
        f.write("network=synthetic trace: alpha and beta not measured\n")
        f.write(f"alpha_s={ALPHA_S:g}\n")
        f.write(f"beta_s_per_byte={BETA_S_PER_BYTE:g}\n")
        f.write(f"clock_max_rtt_s=3.1e-06\nrecords={len(rows)}\n")


if __name__ == "__main__":
    main()
