#!/usr/bin/env python3
"""ab.sh's JSON files: per build, size and pattern, Clairvoyant's and the predicted scatter's
excess over native's (x/native) and e/native, each round one cell, and native's excess in tau.
Usage: table.py [NP]"""
import glob, gzip, json, re, sys
from collections import defaultdict

np = sys.argv[1] if len(sys.argv) > 1 else '8'
cells = defaultdict(list)  # (build, bytes, pattern, algorithm) -> [(round, x, e)]
native_tau = defaultdict(list)
for f in sorted(glob.glob(f'clv-np{np}-*-r*.json*')):
    build, rnd = re.match(rf'clv-np{np}-(\w+)-r(\d+)\.json', f).groups()
    d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    for size in d['results']['sizes']:
        for point in size['points']:
            algs = {a['name']: a for a in point['algorithms']}
            excess = lambda a: a['mean_excess_s']
            nat = algs['native']
            native_tau[(size['bytes'], point['pattern'])].append(excess(nat) / size['tau_s'])
            for name in ('clairvoyant', 'predicted_scatter'):
                a = algs[name]
                cells[(build, size['bytes'], point['pattern'], name)].append(
                    (int(rnd), excess(a) / excess(nat), a['mean_elapsed_s'] / nat['mean_elapsed_s']))
print(f'p = {np}, 10 tau, x/native (e/native) per round, in round order\n')
print('| size | pattern | build | clairvoyant | predicted_scatter |\n|---|---|---|---|---|')
for key in sorted({k[1:3] for k in cells}):
    for build in ('old', 'new', 'new2'):
        row = []
        for name in ('clairvoyant', 'predicted_scatter'):
            runs = sorted(cells.get((build,) + key + (name,), []))
            row.append(', '.join(f'{x:.2f} ({e:.2f})' for _, x, e in runs) or '–')
        if row != ['–', '–']:
            print(f'| {key[0] >> 20} MiB | {key[1]} | {build} | {row[0]} | {row[1]} |')
print('\nnative\'s excess in tau (every run): ' + '; '.join(
    f'{b >> 20} MiB {p} {min(v):.2f}–{max(v):.2f}' for (b, p), v in sorted(native_tau.items())))
