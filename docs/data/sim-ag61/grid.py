#!/usr/bin/env python3
"""[AG] §6.1's grid in papshim-sim, with BSLB: P = 16, 24, 32, 48; 128K-2M floats gathered
in total; delays U[0, MD) for MD = 0 (balanced), 1, 5, 10, 50, 100, 500 ms; seeds 1-5, mean ē.
1 GbE as alpha = 50 us, beta = 8 ns/B, one port per rank (--contention), as in
docs/simulator.md "BDR against [AG] §6.1".

usage: grid.py PAPSHIM_SIM OUT.json   (runs the grid, ~2-5 minutes)
       grid.py --table OUT.json       (prints the tables of docs/simulator.md)
"""
import json
import subprocess
import sys
import tempfile

RANKS = [16, 24, 32, 48]
FLOATS_K = [128, 256, 512, 1024, 2048]
DELAYS_MS = [0, 1, 5, 10, 50, 100, 500]
SEEDS = [1, 2, 3, 4, 5]
ALGORITHMS = ["sparbit", "neighbor_exchange", "ring", "bdr", "bslb"]
CLASSIC = {"sparbit": "LOG", "neighbor_exchange": "NEX", "ring": "RING"}


def run(sim, out):
    cells = {}
    total = len(RANKS) * len(FLOATS_K) * len(DELAYS_MS)
    done = 0
    for p in RANKS:
        for kf in FLOATS_K:
            per_rank = 4 * kf * 1024 // p
            for md in DELAYS_MS:
                seeds = [1] if md == 0 else SEEDS
                sums = {a: 0.0 for a in ALGORITHMS}
                for seed in seeds:
                    pattern = "balanced" if md == 0 else f"uniform:{md / 1000}"
                    with tempfile.NamedTemporaryFile(suffix=".json") as f:
                        subprocess.run([sim, "--ranks", str(p), "--bytes", str(per_rank), "--pattern", pattern,
                                        "--seed", str(seed), "--alpha", "50e-6", "--beta", "8e-9", "--contention",
                                        "--algorithms", ",".join(ALGORITHMS), "--json", f.name],
                                       check=True, stdout=subprocess.DEVNULL)
                        for r in json.load(open(f.name))["results"]:
                            sums[r["algorithm"]] += r["mean_elapsed"]
                cells[f"{p}/{kf}/{md}"] = {a: s / len(seeds) for a, s in sums.items()}
                done += 1
                print(f"\r{done}/{total} cells", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    json.dump(cells, open(out, "w"), indent=1)


def table(path):
    cells = json.load(open(path))
    print("Fastest classic algorithm, or BDR/BSLB with its speedup over it (>= 0.5%):")
    print("MD(ms)  " + "".join(f"{md:<9}" for md in DELAYS_MS))
    worst_bslb = []
    for p in RANKS:
        print(f"P={p}")
        for kf in FLOATS_K:
            row = f" {kf:<6} "
            for md in DELAYS_MS:
                c = cells[f"{p}/{kf}/{md}"]
                best = min(CLASSIC, key=lambda a: c[a])
                label = CLASSIC[best]
                for aware in ("bdr", "bslb"):
                    gain = c[best] / c[aware]
                    if gain >= 1.005 and c[aware] <= min(c["bdr"], c["bslb"]):
                        label = f"{aware.upper()}{gain:.2f}"
                worst_bslb.append((c["bslb"] / c["ring"], c["bslb"] / c["bdr"], p, kf, md))
                row += f"{label:<9}"
            print(row)
    ring = [w[0] for w in worst_bslb]
    bdr = [w[1] for w in worst_bslb]
    print(f"BSLB/ring: min {min(ring):.3f} max {max(ring):.3f}; BSLB/BDR: min {min(bdr):.3f} max {max(bdr):.3f}")
    beats_ring = [w for w in worst_bslb if w[0] < 0.995]
    print(f"cells where BSLB beats the ring by >= 0.5%: {len(beats_ring)} of {len(worst_bslb)}")
    print(f"cells where BSLB beats BDR: {sum(1 for w in worst_bslb if w[1] < 0.995)}")
    near = sorted(worst_bslb)[:5]
    print("BSLB's best cells (BSLB/ring, BSLB/BDR, P, K floats, MD):", near)


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        table(sys.argv[2])
    else:
        run(sys.argv[1], sys.argv[2])
