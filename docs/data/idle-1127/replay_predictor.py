#!/usr/bin/env python3
"""Replays papshim's EMA predictor over a trace's calls.csv(.gz), as it is (keep) and with an
outlier clip tried on 2026-11-27 (clip), and scores each call's predicted arrival vector:
the largest error over the ranks, the common offset (median error) removed, in units of tau.

usage: replay_predictor.py CALLS_CSV[.gz] TAU_SECONDS [SPREAD]

The clip: after two samples, a sample further than SPREAD times the series' smoothed absolute
deviation (at least 2% of its value) from the EMA enters clipped to that bound; a second one
in a row on the same side restarts the series at the two samples' mean. `series` clips the
compute-interval and time-inside series separately (papshim's two series); `interval` clips
the arrival-to-arrival interval (their sum). One call site per communicator is assumed (the
bench's loop)."""
import collections, csv, gzip, statistics, sys

ALPHA, FLOOR = 0.25, 0.02


class Series:
    def __init__(self, clip, spread):
        self.value, self.count, self.dev, self.pending, self.pending_sample = None, 0, 0.0, 0, None
        self.clip, self.spread = clip, spread

    def add(self, x):
        self.count += 1
        if self.count == 1:
            self.value = x
            return
        if self.clip and self.count > 2:
            d = x - self.value
            bound = self.spread * max(self.dev, FLOOR * abs(self.value))
            if abs(d) > bound:
                side = 1 if d > 0 else -1
                if self.pending == side:
                    self.value, self.pending = (x + self.pending_sample) / 2, 0
                    return
                self.pending, self.pending_sample, x = side, x, self.value + side * bound
            else:
                self.pending = 0
        self.dev += ALPHA * (abs(x - self.value) - self.dev)
        self.value = ALPHA * x + (1 - ALPHA) * self.value

    def ready(self):
        return self.count >= 2


def predictions(calls, mode, clip, spread):
    out = {}
    for rank, rows in calls.items():
        compute, inside, interval = Series(clip, spread), Series(clip, spread), Series(clip, spread)
        last_exit = last_arrival = None
        for k, r in enumerate(rows):
            a, f = float(r['arrival_s']), float(r['exit_s'])
            if mode == 'series':
                if last_exit is not None:
                    compute.add(a - last_exit)
                if compute.ready() and inside.ready():
                    out[(rank, k + 1)] = a + inside.value + compute.value
                inside.add(f - a)
            else:
                if last_arrival is not None:
                    interval.add(a - last_arrival)
                if interval.ready():
                    out[(rank, k + 1)] = a + interval.value
            last_exit, last_arrival = f, a
    return out


def main():
    path, tau = sys.argv[1], float(sys.argv[2])
    spread = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
    opener = gzip.open if path.endswith('.gz') else open
    keys = collections.defaultdict(lambda: collections.defaultdict(list))
    with opener(path, 'rt') as f:
        for r in csv.DictReader(f):
            keys[(r['comm'], r['callsite'], r['bytes'])][int(r['rank'])].append(r)
    for key, calls in keys.items():
        n = min(len(v) for v in calls.values())
        if n < 10:
            continue
        for v in calls.values():
            v.sort(key=lambda r: int(r['seq']))
            del v[n:]
        print(f"{key[0]} {key[1]} {int(key[2]) >> 10} KiB in all ranks, {n} calls")
        for mode in ('series', 'interval'):
            for clip in (False, True):
                pred = predictions(calls, mode, clip, spread)
                worst = []
                for k in range(n):
                    if all((r, k) in pred for r in calls):
                        e = [pred[(r, k)] - float(calls[r][k]['arrival_s']) for r in sorted(calls)]
                        m = statistics.median(e)
                        worst.append(max(abs(x - m) for x in e) / tau)
                share = lambda t: sum(1 for x in worst if x <= t) / len(worst)
                print(f"  {mode:8s} {'clip' if clip else 'keep'}: calls within 1 tau {share(1):.2f}, "
                      f"within 2 tau {share(2):.2f}, median {statistics.median(worst):.2f} tau")


if __name__ == '__main__':
    main()
