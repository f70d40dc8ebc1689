#!/usr/bin/env python3
"""Writes clairvoyant_cases.txt, the Python models' plans that test_clairvoyant.cpp compares
papshim's two Clairvoyant schedulers against.

Needs the spec folder's reference models (clv.py, clv_seg.py), which CI does not have, so
the output is committed:
    python3 make_clairvoyant_cases.py /work/shared/spec/reference > clairvoyant_cases.txt

Every case is planned by the linear model with the half-open window (spec §4.6(e)) and
checked against the segment-tree model and the data-flow replay before it is written.
Format, one case per block:
    case P N d root rounds
    a a_0 ... a_{P-1}
    m round from to segment      (one line per move, sorted by round, then receiver)
"""
import random
import sys

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "/work/shared/spec/reference")
from clv import check, clairvoyant  # noqa: E402
from clv_seg import clv_segtree  # noqa: E402


def cases():
    # The spec's §4.11 oracles first.
    yield [0, 0, 0, 11], 10, 0, 4
    yield [0, 0, 0, 0, 40], 10, 0, 2
    yield [0, 1000, 2000, 3000], 1, 0, 1
    rng = random.Random(20240611)
    for _ in range(600):  # small and tie-heavy, as the spec's cross-check
        p = rng.randint(1, 14)
        a = [rng.choice([0, rng.randint(0, 120), rng.randint(0, 4)]) for _ in range(p)]
        yield a, rng.randint(1, 15), rng.randrange(p), rng.randint(1, 9)
    for _ in range(24):  # larger, offset origins, more segments than one word
        p = rng.randint(15, 40)
        base = rng.randint(0, 10**6)
        a = [base + rng.randint(0, 300) for _ in range(p)]
        yield a, rng.randint(1, 80), rng.randrange(p), rng.choice([1, 3, 17, 65])


def main():
    out = []
    for a, d, root, n in cases():
        p = len(a)
        inbox, outbox, rounds = clairvoyant(a, d, root, n, closed_window=False)
        if p > 1:
            check(inbox, outbox, p, n, root)
            seg_in, seg_out, seg_rounds = clv_segtree(a, d, root, n)
            assert (seg_in, seg_out) == (inbox, outbox), (a, d, root, n)
        moves = sorted((r, z, i, j) for i in range(p) for (r, z, j) in inbox[i])
        out.append(f"case {p} {n} {d} {root} {rounds}")
        out.append("a " + " ".join(map(str, a)))
        out.extend(f"m {r} {z} {i} {j}" for r, z, i, j in moves)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
