#!/usr/bin/python3
"""How predictable a trace's arrival pattern is, per call site (papshim's calls.csv).

For each call of a site (in time order) every rank's delay is d_i = a_i - min_j a_j. A
per-site, per-rank EMA of the earlier calls' delays (alpha 0.5; the predictor's kind, DESIGN
§5) predicts the next call's delays. Per site this prints:
  hit last : share of calls in which the rank with the largest predicted delay arrived last
             (chance: 1/p); what an arrival-ordered algorithm needs to know
  repeat   : share of calls whose last rank was also the previous call's last rank
  skill    : 1 - sum|predicted - actual delay| / sum|actual delay|, over ranks and calls: 1 is a
             perfect prediction, 0 no better than predicting "all arrive together", below 0
             worse than that (old outliers kept in the EMA)
Only calls on communicators of at least 2 ranks with every rank present count; the first call
of a site only seeds the EMA.

  examples/apps/pap_predictability.py TRACE_DIR [--top 10] [--alpha 0.5]
"""
import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path


def calls_by_site(path):
    calls = defaultdict(dict)  # (comm, seq) -> {rank: arrival}
    site_of, collective_of, function_of = {}, {}, {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            key = (row["comm"], int(row["seq"]))
            calls[key][int(row["rank"])] = float(row["arrival_s"])
            size = int(row["comm_size"])
            if row["rank"] == "0":
                site_of[key] = (row["comm"], row["callsite"])
                collective_of[row["callsite"]] = row["collective"]
                function_of[row["callsite"]] = row["function"]
            calls[key]["size"] = size
    sites = defaultdict(list)
    for key in sorted(calls, key=lambda k: min(v for r, v in calls[k].items() if r != "size")):
        arrivals = calls[key]
        size = arrivals.pop("size")
        if size >= 2 and len(arrivals) == size and key in site_of:
            sites[site_of[key]].append([arrivals[r] for r in range(size)])
    return sites, collective_of, function_of


def measure(series, alpha):
    ema, hits, repeats, previous_last, counted = None, 0, 0, None, 0
    error_sum = delay_sum = 0.0
    for arrivals in series:
        first = min(arrivals)
        delays = [a - first for a in arrivals]
        omega = max(delays)
        last = delays.index(omega)
        if ema is not None:
            counted += 1
            hits += max(range(len(ema)), key=ema.__getitem__) == last
            repeats += previous_last == last
            error_sum += sum(abs(p - d) for p, d in zip(ema, delays))
            delay_sum += sum(delays)
            ema = [alpha * d + (1 - alpha) * p for p, d in zip(ema, delays)]
        else:
            ema = delays
        previous_last = last
    if counted == 0:
        return None
    skill = 1 - error_sum / delay_sum if delay_sum > 0 else float("nan")
    return hits / counted, repeats / counted, skill, counted


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--alpha", type=float, default=0.5)
    options = parser.parse_args()
    sites, collective_of, function_of = calls_by_site(options.trace / "calls.csv")
    busiest = sorted(sites.items(), key=lambda item: -len(item[1]))[:options.top]
    print(f"{'calls':>6} {'ranks':>5} {'hit last':>8} {'chance':>6} {'repeat':>6} {'skill':>6}  collective  site")
    for (comm, site), series in busiest:
        result = measure(series, options.alpha)
        if result is None:
            continue
        hit, repeat, skill, counted = result
        name = function_of.get(site, "?")
        print(f"{counted + 1:6d} {len(series[0]):5d} {hit:8.0%} {1 / len(series[0]):6.0%} {repeat:6.0%} {skill:6.2f}  "
              f"{collective_of[site]:10s}  {site} {name if name != '?' else ''} ({comm})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
