#!/usr/bin/env python3
"""Draws the imbalance-sweep plots of a papshim-bench --suite sweep JSON file.

usage: papshim_bench_plot.py RESULTS.json DIR
Writes DIR/sweep-<collective>-<bytes>-<pattern>.png: one figure per size and pattern, with
e/native and excess/native (excess = e - LB) against the measured imbalance factor w/tau,
one line per algorithm (docs/benchmarks.md, "Imbalance sweep").
Exit 0 ok, 2 bad input, 3 matplotlib missing.
"""
import json
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(3)


def size_label(size):
    for shift, unit in ((20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def draw(document, size, pattern, points, out_dir):
    results = document["results"]
    baseline = results["baseline"]
    names = [entry["name"] for entry in points[0]["algorithms"]]
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
    # The measured w/tau of each point (mean over algorithms): where the pattern really put it.
    xs = [point["imbalance_factor"] for point in points]
    order = sorted(range(len(points)), key=lambda i: xs[i])
    for name_index, name in enumerate(names):
        style = {"linestyle": "--", "color": "black"} if name == baseline else {"marker": "o"}
        for axis, key in zip(axes, ("elapsed_ratio", "excess_ratio")):
            ys = [points[i]["algorithms"][name_index][key] for i in order]
            ys = [float("nan") if y is None else y for y in ys]
            axis.plot([xs[i] for i in order], ys, label=name, markersize=3, **style)
    where = "per rank" if results.get("bytes_are") == "per rank" else "vector"
    for axis, title in zip(axes, (f"ē / ē_{baseline}", f"(ē − LB) / (ē − LB)_{baseline}")):
        axis.set_xlabel("imbalance factor ω/τ (measured)")
        axis.set_xscale("symlog", linthresh=1)  # 0 to 50: the small factors get room too
        axis.set_title(title)
        axis.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    figure.suptitle(
        f"{results['collective']}, {size_label(size['bytes'])} {where}, p = {document['ranks']}, "
        f"{pattern}; τ = {size['tau_s'] * 1e6:.3g} µs; network: {document.get('network', 'unspecified')}"
    )
    figure.tight_layout()
    name = f"sweep-{results['collective']}-{size_label(size['bytes']).replace(' ', '')}-{pattern.replace(':', '')}.png"
    path = os.path.join(out_dir, name)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            document = json.load(f)
        results = document["results"]
        if results.get("suite") != "sweep":
            raise ValueError("not a --suite sweep result")
        for size in results["sizes"]:
            by_pattern = {}
            for point in size["points"]:
                by_pattern.setdefault(point["pattern"], []).append(point)
            for pattern, points in by_pattern.items():
                print(f"plot written to {draw(document, size, pattern, points, argv[2])}")
    except (OSError, ValueError, KeyError, IndexError) as error:
        print(f"papshim_bench_plot.py: {argv[1]}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
