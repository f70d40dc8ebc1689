#!/usr/bin/env python3
"""Summarises paired overhead runs: papshim-bench --suite overhead JSON files named
before-N.json and after-N.json in one directory (a build before a change and after it, runs
alternating). Prints, per variant, the fresh 20 000-call ratio, its slice median, and the
steady-state median ratio and extra ns per call, one column per run.

usage: overhead-paired-summary.py DIR [before after]"""
import glob
import json
import statistics
import sys


def numbers(values, digits=3):
    return " ".join(f"{v:.{digits}f}" for v in values)


def runs(directory, tag):
    out = []
    for path in sorted(glob.glob(f"{directory}/{tag}-*.json"), key=lambda p: int(p.rsplit("-", 1)[1][:-5])):
        results = json.load(open(path))["results"]
        fresh = {v["name"]: v for v in results["fresh"]["variants"]}
        steady = {v["name"]: v for v in results["benchmarks"][0]["variants"]}  # the 8-byte Allreduce
        out.append((fresh, steady))
    return out


def main():
    directory = sys.argv[1]
    for tag in sys.argv[2:] or ["before", "after"]:
        rows = runs(directory, tag)
        if not rows:
            continue
        native_ns = [s["native"]["median_seconds_per_call"] * 1e9 for _, s in rows]
        print(f"{tag}: {len(rows)} runs, native steady ns {numbers(native_ns, 0)}")
        for name in ["off", "profile", "dispatch+native", "dispatch+auto"]:
            fresh = [f[name]["ratio_to_native"] for f, _ in rows]
            slices = [statistics.median(f[name]["slice_ratios_to_native"]) for f, _ in rows]
            ratio = [s[name]["median_ratio_to_native"] for _, s in rows]
            extra = [(s[name]["median_seconds_per_call"] - s["native"]["median_seconds_per_call"]) * 1e9 for _, s in rows]
            print(f"  {name:16s} fresh {numbers(fresh)}")
            print(f"  {'':16s} fresh slice median {numbers(slices)}")
            print(f"  {'':16s} steady {numbers(ratio)}  extra ns {numbers(extra, 0)}")


if __name__ == "__main__":
    main()
