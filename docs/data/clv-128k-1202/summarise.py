#!/usr/bin/env python3
"""e/native per point and round, from the sweeps' JSON (plain or .gz):
  auto today (the tree below 512 KiB) against auto with Clairvoyant's plan from 256 KiB (../clv-256k-1202, build
  clv256) or from 128 KiB (this directory, build clv128); the tree and Clairvoyant named from today's build; then the
  short runs (short.sh: before/after). Usage: summarise.py [DIR ...] (default: this directory and ../clv-256k-1202)."""
import collections, glob, gzip, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
dirs = sys.argv[1:] or [here, os.path.join(here, '..', 'clv-256k-1202')]
ratios = collections.defaultdict(dict)   # (size, p, pattern, D) -> {(build, round, algorithm): e/native}
short = collections.defaultdict(dict)
for d in dirs:
    for path in sorted(glob.glob(os.path.join(d, '*-r[0-9]-np*.json*'))):
        parts = os.path.basename(path).split('.')[0].split('-')
        if len(parts) == 4:                       # ../clv-256k-1202: build-rN-npN-kind, all 256 KiB
            parts.insert(3, '256K')
        build, rnd, np, size, kind = parts
        with (gzip.open if path.endswith('.gz') else open)(path, 'rt') as f:
            points = json.load(f)['results']['sizes'][0]['points']
        for point in points:
            key = (size, int(np[2:]), point['pattern'], point['max_delay'])
            for a in point['algorithms']:
                if kind == 'short':
                    short[key][(build, rnd, a['name'])] = a['elapsed_ratio']
                else:
                    planned = build != 'main'
                    # Rounds of both directories, numbered apart (clv256's r1-r3, clv128's r4-r6).
                    tag = rnd if os.path.samefile(d, here) is False else 'r' + str(int(rnd[1:]) + 3)
                    ratios[key][('plan' if planned else 'today', tag, a['name'])] = a['elapsed_ratio']

def cells(r, build, name, rounds):
    return ' '.join(f"{r[(build, x, name)]:.2f}" for x in rounds if (build, x, name) in r)

print('Sweeps (20 calls after 8 of warm-up): auto today | auto with the plan | the tree | Clairvoyant named')
for key in sorted(ratios, key=lambda k: (-int(k[0][:-1]), k[1], k[2], k[3])):
    r = ratios[key]
    rounds = sorted({x for (_, x, _) in r}, key=lambda x: int(x[1:]))
    print(f"{key[0]:5} p={key[1]} {key[2]:10} {key[3]:6} | {cells(r, 'today', 'auto', rounds):30} | "
          f"{cells(r, 'plan', 'auto', rounds):30} | {cells(r, 'today', 'binomial', rounds):30} | {cells(r, 'today', 'clairvoyant', rounds)}")
print('\nShort runs (12 calls, no warm-up): auto before | auto after | the tree before | the tree after')
for key in sorted(short):
    r = short[key]
    rounds = sorted({x for (_, x, _) in r})
    print(f"{key[0]:5} p={key[1]} {key[2]:10} {key[3]:6} | {cells(r, 'before', 'auto', rounds)} | {cells(r, 'after', 'auto', rounds)} | "
          f"{cells(r, 'before', 'binomial', rounds)} | {cells(r, 'after', 'binomial', rounds)}")
