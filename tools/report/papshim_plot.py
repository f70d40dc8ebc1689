#!/usr/bin/env python3
"""Draws the PAP report plots from the plot input papshim-report writes.

usage: papshim_plot.py DIR
Reads DIR/plot-sites.csv and DIR/plot-data.csv (see docs/report.md) and writes
DIR/pap-heatmap-<site>.png (arrival delay, rank x call) and DIR/pap-omega.png
(omega per call over time, one panel per call site).
Exit 0 ok, 2 bad input, 3 matplotlib/numpy missing.
"""
import csv
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError:
    sys.exit(3)

MAX_OMEGA_PANELS = 8


def read_sites(path):
    # Call sites name files and functions: bytes that are not UTF-8 (a Latin-1 path) are shown
    # replaced rather than failing the plots.
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return [dict(row) for row in csv.DictReader(f)]


def read_data(path):
    """Returns {site: (omega_calls, omega_ms, {call: {rank: delay_ms}})}."""
    data = {}
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.DictReader(f):
            site = int(row["site"])
            call, rank, value = int(row["call"]), int(row["rank"]), float(row["value_ms"])
            calls, omegas, delays = data.setdefault(site, ([], [], {}))
            if rank < 0:
                calls.append(call)
                omegas.append(value)
            else:
                delays.setdefault(call, {})[rank] = value
    return data


def site_title(site):
    where = site["callsite"] or "(unknown call site)"
    if site["function"] and site["function"] != "?":
        where += "  " + site["function"]
    if site["location"]:
        where += "  " + site["location"]
    if len(where) > 90:
        where = "..." + where[-87:]
    return f"#{site['site']} {site['collective']}  {where}"


def draw_heatmap(site, delays, out_path):
    calls = sorted(delays)
    ranks = int(site["ranks"])
    matrix = np.full((ranks, len(calls)), np.nan)
    for column, call in enumerate(calls):
        for rank, value in delays[call].items():
            matrix[rank, column] = value
    stride = int(site["sample_stride"])
    finite = matrix[np.isfinite(matrix)]
    top = float(np.percentile(finite, 99)) if finite.size else 1.0
    capped = finite.size and float(finite.max()) > 1.5 * top and top > 0
    vmax = top if capped else (float(finite.max()) if finite.size else 1.0)
    vmax = vmax if vmax > 0 else 1.0

    fig, ax = plt.subplots(figsize=(10, min(max(2.4 + 0.18 * ranks, 3.0), 7.5)))
    last = calls[-1] + stride if calls else 1
    image = ax.imshow(matrix, aspect="auto", interpolation="nearest", cmap="magma",
                      vmin=0, vmax=vmax, origin="lower",
                      extent=(calls[0] if calls else 0, last, -0.5, ranks - 0.5))
    shown = f"{site['calls']} calls" + (f", 1 in {stride} shown" if stride > 1 else "")
    ax.set_title(f"{site_title(site)}\narrival delay per rank ({shown})", fontsize=10)
    ax.set_xlabel("call index at this site")
    ax.set_ylabel("rank in communicator")
    if ranks <= 32:
        ax.set_yticks(range(ranks))
    bar = fig.colorbar(image, ax=ax, extend="max" if capped else "neither",
                       pad=0.01, fraction=0.04)
    bar.set_label("arrival - first arrival (ms)" + ("\ncapped at p99" if capped else ""))
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)


def draw_omega(sites, data, out_path):
    panels = [s for s in sites if int(s["site"]) in data][:MAX_OMEGA_PANELS]
    if not panels:
        return False
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 0.6 + 2.2 * len(panels)),
                             squeeze=False)
    for ax, site in zip(axes[:, 0], panels):
        calls, omegas, _ = data[int(site["site"])]
        ax.plot(calls, omegas, ".", markersize=3, color="tab:blue")
        median = float(np.median(omegas)) if omegas else 0.0
        ax.axhline(median, color="tab:red", linewidth=1)
        stride = int(site["omega_stride"])
        shown = f", 1 call in {stride} shown" if stride > 1 else ""
        ax.set_title(f"{site_title(site)}{shown}   (red line: median {median:.3f} ms)",
                     fontsize=9)
        ax.set_ylabel("omega (ms)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("call index at this site")
    fig.suptitle("omega = last arrival - first arrival, per call", fontsize=10)
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) != 2:
        print("usage: papshim_plot.py DIR", file=sys.stderr)
        return 2
    folder = argv[1]
    try:
        sites = read_sites(os.path.join(folder, "plot-sites.csv"))
        data = read_data(os.path.join(folder, "plot-data.csv"))
    except (OSError, KeyError, ValueError) as error:
        print(f"papshim_plot.py: bad plot input in {folder}: {error}", file=sys.stderr)
        return 2
    written = []
    for site in sites:
        entry = data.get(int(site["site"]))
        if entry and entry[2]:
            path = os.path.join(folder, f"pap-heatmap-{site['site']}.png")
            draw_heatmap(site, entry[2], path)
            written.append(path)
    omega_path = os.path.join(folder, "pap-omega.png")
    if draw_omega(sites, data, omega_path):
        written.append(omega_path)
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
