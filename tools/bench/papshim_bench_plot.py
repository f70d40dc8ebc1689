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
    from matplotlib.ticker import NullFormatter, ScalarFormatter
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
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharex=True)
    # The measured w/tau of each point (median over its calls): where the pattern really put it.
    xs = [point["median_imbalance_factor"] for point in points]
    order = sorted(range(len(points)), key=lambda i: xs[i])
    for name_index, name in enumerate(names):
        style = {"linestyle": "--", "color": "black"} if name == baseline else {"marker": "o"}
        for axis, key in zip(axes, ("elapsed_ratio", "excess_ratio")):
            ys = [points[i]["algorithms"][name_index][key] for i in order]
            ys = [float("nan") if y is None else y for y in ys]
            axis.plot([xs[i] for i in order], ys, label=name, markersize=3, **style)
    where = "per rank" if results.get("bytes_are") == "per rank" else "vector"
    for axis, title in zip(axes, (f"ē / ē_{baseline}", f"(ē − LB) / (ē − LB)_{baseline}")):
        axis.set_xlabel("imbalance factor ω/τ (measured, median)")
        axis.set_xscale("symlog", linthresh=1)  # 0 to 50: the small factors get room too
        ticks = [t for t in (0, 1, 2, 5, 10, 20, 50, 100, 200, 500)
                 if min(xs) * 0.8 <= t <= max(xs) * 1.2 or (t == 0 and min(xs) < 0.5)]
        axis.set_xticks(ticks)
        axis.xaxis.set_major_formatter(ScalarFormatter())
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.set_title(title)
        axis.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=min(len(names), 7), fontsize=8)
    figure.suptitle(
        f"{results['collective']}, {size_label(size['bytes'])} {where}, p = {document['ranks']}, "
        f"{pattern}; τ = {size['tau_s'] * 1e6:.3g} µs; network: {document.get('network', 'unspecified')}"
    )
    figure.tight_layout(rect=(0, 0.07, 1, 1))
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
        os.makedirs(argv[2], exist_ok=True)
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
