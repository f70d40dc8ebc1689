#!/usr/bin/python3
"""imbalance.py: the imbalance example with mpi4py and numpy (Open MPI's mpi4py on Debian).

Each iteration every rank sleeps for a delay chosen by --pattern, then calls Allgather and
Allgatherv (exchange_halo) and Allreduce and Reduce (global_sum) on numpy arrays. Rank 0
prints a checksum of every rank's results, which does not depend on the algorithm that ran.

    mpiexec -n 4 /usr/bin/python3 imbalance.py --pattern one-late:2:20 --iterations 30
"""
import argparse
import hashlib
import sys
import time

import numpy as np
from mpi4py import MPI

COLLECTIVES = ("allgather", "allgatherv", "allreduce", "reduce")


def parse_pattern(text):
    """Return a function (rank, iteration, seed) -> delay in milliseconds."""
    kind, _, rest = text.partition(":")
    try:
        if kind == "none" and not rest:
            return lambda rank, iteration, seed: 0.0
        if kind == "one-late":
            late_rank, milliseconds = rest.split(":")
            late_rank, milliseconds = int(late_rank), float(milliseconds)
            return lambda rank, iteration, seed: milliseconds if rank == late_rank else 0.0
        if kind == "random":
            maximum = float(rest)
            # Reproducible per (seed, rank, iteration) without shared random state.
            return lambda rank, iteration, seed: maximum * np.random.default_rng(
                [seed, rank, iteration]).integers(0, 1001) / 1000.0
        if kind == "staircase":
            step = float(rest)
            return lambda rank, iteration, seed: step * rank
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"invalid pattern '{text}'")


def parse_collectives(text):
    names = text.split(",")
    unknown = [name for name in names if name not in COLLECTIVES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown collective '{unknown[0]}'")
    return names


def contribution(rank, iteration, count, dtype):
    """Small integers, so sums of doubles are exact in any reduction order."""
    return ((7 * rank + 13 * iteration + 3 * np.arange(count)) % 1000).astype(dtype)


def block_count(count, rank):
    return count + rank % 3


class Tally:
    def __init__(self):
        self.hashes = {name: hashlib.sha256() for name in COLLECTIVES}
        self.seconds = dict.fromkeys(COLLECTIVES, 0.0)
        self.calls = dict.fromkeys(COLLECTIVES, 0)
        self.errors = 0

    def record(self, name, start, result, expected):
        self.seconds[name] += MPI.Wtime() - start
        self.calls[name] += 1
        if result is not None:
            self.hashes[name].update(result.tobytes())
            self.errors += int(np.count_nonzero(result != expected))


def exchange_halo(comm, opts, dtype, iteration, tally):
    rank, size = comm.Get_rank(), comm.Get_size()
    gathered = [contribution(r, iteration, opts.count, dtype) for r in range(size)]
    if "allgather" in opts.collectives:
        recv = np.zeros(size * opts.count, dtype)
        send = contribution(rank, iteration, opts.count, dtype)
        if opts.in_place:
            recv[rank * opts.count:(rank + 1) * opts.count] = send
            send = MPI.IN_PLACE
        start = MPI.Wtime()
        comm.Allgather(send, recv)
        tally.record("allgather", start, recv, np.concatenate(gathered))
    if "allgatherv" in opts.collectives:
        counts = [block_count(opts.count, r) for r in range(size)]
        displs = np.concatenate(([0], np.cumsum(counts)[:-1])).tolist()
        recv = np.zeros(sum(counts), dtype)
        send = contribution(rank, iteration, counts[rank], dtype)
        if opts.in_place:
            recv[displs[rank]:displs[rank] + counts[rank]] = send
            send = MPI.IN_PLACE
        expected = np.concatenate([contribution(r, iteration, counts[r], dtype) for r in range(size)])
        start = MPI.Wtime()
        comm.Allgatherv(send, [recv, counts, displs, MPI._typedict[recv.dtype.char]])
        tally.record("allgatherv", start, recv, expected)


def global_sum(comm, opts, dtype, iteration, tally):
    rank, size = comm.Get_rank(), comm.Get_size()
    contributions = [contribution(r, iteration, opts.count, dtype) for r in range(size)]
    if "allreduce" in opts.collectives:
        recv = np.zeros(opts.count, dtype)
        send = contributions[rank]
        if opts.in_place:
            recv[:] = send
            send = MPI.IN_PLACE
        start = MPI.Wtime()
        comm.Allreduce(send, recv, op=MPI.SUM)
        tally.record("allreduce", start, recv, np.sum(contributions, axis=0, dtype=dtype))
    if "reduce" in opts.collectives:
        at_root = rank == opts.root
        recv = np.zeros(opts.count, dtype) if at_root else None
        send = contributions[rank]
        if opts.in_place and at_root:  # MPI_IN_PLACE is legal only at the root
            recv[:] = send
            send = MPI.IN_PLACE
        start = MPI.Wtime()
        comm.Reduce(send, recv, op=MPI.MAX, root=opts.root)
        tally.record("reduce", start, recv, np.max(contributions, axis=0))


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pattern", type=parse_pattern, default=parse_pattern("none"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--collectives", type=parse_collectives, default=list(COLLECTIVES))
    parser.add_argument("--count", type=int, default=1024)
    parser.add_argument("--type", choices=("int", "double"), default="int")
    parser.add_argument("--root", type=int, default=0)
    parser.add_argument("--in-place", action="store_true")
    parser.add_argument("--iterations", type=int, default=20)
    opts = parser.parse_args()
    if not 0 <= opts.root < size:
        if rank == 0:
            print(f"imbalance.py: invalid --root {opts.root}: must be below {size}", file=sys.stderr)
        sys.exit(2)
    dtype = np.float64 if opts.type == "double" else np.int32

    tally = Tally()
    comm.Barrier()  # not intercepted: the loop's clock starts with every rank present
    loop_start = MPI.Wtime()
    for iteration in range(opts.iterations):
        time.sleep(opts.pattern(rank, iteration, opts.seed) / 1000.0)
        exchange_halo(comm, opts, dtype, iteration, tally)
        global_sum(comm, opts, dtype, iteration, tally)
    loop_seconds = MPI.Wtime() - loop_start

    # Point-to-point only, so the report adds no collectives to the profile.
    mine = ({name: tally.hashes[name].digest() for name in COLLECTIVES}, tally.errors)
    if rank != 0:
        comm.send(mine, dest=0, tag=0)
        sys.exit(0 if tally.errors == 0 else 1)
    everyone = [mine] + [comm.recv(source=r, tag=0) for r in range(1, size)]
    combined = {name: hashlib.sha256(b"".join(h[name] for h, _ in everyone)).hexdigest()[:16]
                for name in opts.collectives}
    print(f"imbalance.py: ranks={size} iterations={opts.iterations} count={opts.count} "
          f"type={opts.type} in_place={int(opts.in_place)} root={opts.root}")
    print("checksum " + " ".join(f"{name}={combined[name]}" for name in COLLECTIVES if name in combined))
    print(f"verify errors={sum(errors for _, errors in everyone)}")
    print("timing_us " + " ".join(
        f"{name}={1e6 * tally.seconds[name] / max(tally.calls[name], 1):.1f}"
        for name in COLLECTIVES if name in combined))
    print(f"loop_s {loop_seconds:.6f}")  # rank 0's whole loop, delays included: the program's time
    sys.stdout.flush()
    sys.exit(0 if tally.errors == 0 else 1)


if __name__ == "__main__":
    main()
