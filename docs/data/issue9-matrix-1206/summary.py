#!/usr/bin/env python3
"""The targets of issue 9 from matrix.sh's network runs: under one late rank and a staircase,
the excess over the unavoidable wait of Clairvoyant's family (the named algorithms) and of
`auto` over native's (the Allreduce; for the Reduce, whose non-roots leave before the last
arrival, native's excess is negative and ē over native's is given); under fresh random delays
`auto`'s ē and excess against the arrival-ordered chain's."""
import glob, gzip, json
from collections import defaultdict


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


def size_name(b):
    return f'{b >> 20} MiB' if b >= 1 << 20 else f'{b >> 10} KiB'


for c, named in (('allreduce', ['predicted_scatter', 'predicted_chain', 'clairvoyant']),
                 ('reduce', ['predicted_chain', 'clairvoyant'])):
    metric = 'mean_excess_s' if c == 'allreduce' else 'mean_elapsed_s'
    rows, guard = defaultdict(list), defaultdict(list)
    for f in sorted(glob.glob(f'net-np*-{c}-r*.json*')):
        d = load(f)
        p = d['ranks']
        for size in d['results']['sizes']:
            for point in size['points']:
                a = {x['name']: x for x in point['algorithms']}
                nat = a['native']
                if point['pattern'] == 'uniform':
                    ch = a['arrival_chain']
                    guard[(p, size['bytes'])].append(
                        f"{a['auto']['mean_elapsed_s'] / ch['mean_elapsed_s']:.3f} "
                        f"({a['auto']['mean_excess_s'] / ch['mean_excess_s']:.2f})")
                    continue
                cell = [f"{a[n][metric] / nat[metric]:.2f}" for n in named]
                cell.append(f"{a['auto'][metric] / nat[metric]:.2f} [{a['auto']['plans']['planned']}]")
                rows[(p, size['bytes'], point['pattern'])].append(cell)
    what = 'excess / native\'s' if c == 'allreduce' else 'ē / native\'s'
    print(f'\n**{c}**, {what} (one cell per round; `auto`\'s planned calls of 20 in brackets)\n')
    print('| p | size | pattern | ' + ' | '.join(n.replace('_', ' ') for n in named) + ' | `auto` |')
    print('|---' * (len(named) + 4) + '|')
    for key in sorted(rows, key=lambda k: (-k[0], k[1], k[2])):
        cols = zip(*rows[key])
        print(f'| {key[0]} | {size_name(key[1])} | {key[2]} | ' + ' | '.join(', '.join(col) for col in cols) + ' |')
    print(f'\n{c}, fresh random delays: `auto`\'s ē / the arrival chain\'s (excess / its excess)\n')
    print('| p | size | `auto` / chain |\n|---|---|---|')
    for key in sorted(guard, key=lambda k: (-k[0], k[1])):
        print(f'| {key[0]} | {size_name(key[1])} | ' + ', '.join(guard[key]) + ' |')
