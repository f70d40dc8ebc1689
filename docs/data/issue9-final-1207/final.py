#!/usr/bin/env python3
"""run.sh's JSON files, all rounds of a run pooled (20 calls a round): per transport, MPI, p,
collective, size and pattern, native's median call (ē and excess over the unavoidable wait,
ms), then each algorithm's median call over native's, ē first and the excess in brackets (the
Reduce's excess in ms, native's being about 0 or negative: its non-roots leave early);
`auto`'s calls that ran a plan. Then issue 9's comparisons: Clairvoyant over native's, the
classic tree's (binomial; recursive doubling for the Allreduce), the arrival chain's and
`auto`'s, and `auto` over native's and the arrival chain's, in the median call's ē (the
Allreduce's excess in brackets). Usage: final.py [JSON...] (default: every *.json.gz here)"""
import glob
import gzip
import json
import statistics as st
import sys
from collections import defaultdict

ORDER = {'balanced': -1, 'one-late': 0, 'staircase': 1, 'uniform': 2}


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


def med(xs):
    return st.median(xs)


def size_name(b):
    return f'{b >> 20} MiB' if b >= 1 << 20 else f'{b >> 10} KiB'


def run_name(d):
    """The run's transport and MPI, from the bench's own record."""
    emulated = d['network'].startswith('emulated')
    return ('1 Gbit/s' if emulated else 'shared memory'), ('MPICH' if d['mpi_build'] == 'mpich' else 'Open MPI')


ela = defaultdict(lambda: defaultdict(list))  # key -> algorithm -> per-call ē
exc = defaultdict(lambda: defaultdict(list))  # key -> algorithm -> per-call excess
planned, rounds = defaultdict(int), defaultdict(int)
per_round = defaultdict(list)  # key -> `auto`'s median call's excess over native's, a round each
for f in sys.argv[1:] or sorted(glob.glob('*.json.gz')):
    d = load(f)
    transport, mpi = run_name(d)
    coll = d['options']['collective']
    for size in d['results']['sizes']:
        for point in size['points']:
            # The matrix's delay (10tau) goes unnamed; a balanced point (D = 0) is 'balanced'.
            pattern = point['pattern'] if point['max_delay'] == '10tau' else \
                'balanced' if point['max_delay'] == '0' else f"{point['pattern']} {point['max_delay']}"
            key = (transport, mpi, d['ranks'], coll, size['bytes'], pattern)
            rounds[key] += 1
            round_excess = {}
            for a in point['algorithms']:
                round_excess[a['name']] = med([e - u for e, u in zip(a['elapsed_s'], a['unavoidable_wait_s'])])
                ela[key][a['name']] += a['elapsed_s']
                exc[key][a['name']] += [e - u for e, u in zip(a['elapsed_s'], a['unavoidable_wait_s'])]
                if a['name'] == 'auto':
                    planned[key] += a['plans']['planned']
            per_round[key].append(round_excess['auto'] / round_excess['native'])


groups = defaultdict(list)
for key in ela:
    groups[key[:4]].append(key)
for group in sorted(groups, key=lambda g: (g[0] != '1 Gbit/s', g[1] != 'Open MPI', -g[2], g[3])):
    keys = sorted(groups[group], key=lambda k: (k[4], ORDER.get(k[5], 9)))
    names = [n for n in ela[keys[0]] if n != 'native']
    transport, mpi, p, coll = group
    n_rounds = max(rounds[k] for k in keys)
    print(f'\n**{coll.capitalize()}, {transport}, {mpi}, p = {p}** ({n_rounds} round{"s" if n_rounds > 1 else ""} pooled)\n')
    print('| size | pattern | native ē / excess | ' + ' | '.join(n.replace('_', ' ') for n in names) + ' | `auto` planned |')
    print('|---' * (len(names) + 4) + '|')
    for k in keys:
        ne, nx = med(ela[k]['native']), med(exc[k]['native'])
        if coll == 'allreduce':
            cells = [f"{med(ela[k][n]) / ne:.2f} ({med(exc[k][n]) / nx:.2f})" for n in names]
        else:  # native's excess is about 0 or negative (the non-roots leave early): in ms
            cells = [f"{med(ela[k][n]) / ne:.2f} ({med(exc[k][n]) * 1e3:.3g})" for n in names]
        print(f'| {size_name(k[4])} | {k[5]} | {ne * 1e3:.3g} / {nx * 1e3:.3g} ms | ' + ' | '.join(cells)
              + f' | {planned[k]} of {20 * rounds[k]} |')

print('\n**Issue 9\'s comparisons** (median calls pooled, ē over ē; the Allreduce\'s excess over excess in brackets)\n')
print('| transport, MPI | p | collective | size | pattern | Clairvoyant / native | / classic tree | / arrival chain | / `auto` '
      '| `auto` / native | `auto` / arrival chain |')
print('|---' * 11 + '|')


def ratio(key, alg, ref):
    r = f"{med(ela[key][alg]) / med(ela[key][ref]):.2f}"
    return r + (f" ({med(exc[key][alg]) / med(exc[key][ref]):.2f})" if key[3] == 'allreduce' else '')


for key in sorted(ela, key=lambda k: (k[0] != '1 Gbit/s', k[1] != 'Open MPI', -k[2], k[3], k[4], ORDER.get(k[5], 9))):
    transport, mpi, p, coll, n, pattern = key
    if 'clairvoyant' not in ela[key]:  # runs of the classic algorithms only (mpich-p2.sh)
        continue
    tree = 'binomial' if coll == 'reduce' else 'recursive_doubling'
    cells = [ratio(key, 'clairvoyant', ref) for ref in ('native', tree, 'arrival_chain', 'auto')]
    cells += [ratio(key, 'auto', ref) for ref in ('native', 'arrival_chain')]
    print(f"| {transport}, {mpi} | {p} | {coll} | {size_name(n)} | {pattern} | " + ' | '.join(cells) + ' |')


def network_cells(coll):
    """The network's one-late and staircase cells of a collective, Open MPI first."""
    keys = sorted(ela, key=lambda k: (k[1] != 'Open MPI', -k[2], k[4], ORDER.get(k[5], 9)))
    return [k for k in keys if k[0] == '1 Gbit/s' and k[3] == coll and k[5] in ('one-late', 'staircase')]


def predictable_table(coll, metric, algorithms, by_round=False):
    """A row per network cell of `coll`: each algorithm's median call in `metric` (excess or ē)
    over native's; `auto` a round at a time where asked; its planned calls."""
    for key in network_cells(coll):
        base = med(metric[key]['native'])
        cells = [f"{med(metric[key][a]) / base:.2f}" for a in algorithms]
        if by_round:
            cells.append(', '.join(f'{r:.2f}' for r in per_round[key]))
        print(f"| {key[1]} | {key[2]} | {size_name(key[4])} | {key[5]} | " + ' | '.join(cells)
              + f' | {planned[key]} of {20 * rounds[key]} |')


print('\n**Issue 9\'s first target**: the Allreduce under one late rank or a staircase at 1 Gbit/s, the '
      'median call\'s excess over native\'s (rounds pooled; `auto` also a round at a time)\n')
print('| MPI | p | size | pattern | predicted scatter | Clairvoyant | Clairvoyant, broadcast form | `auto` | `auto` by round | `auto` planned |')
print('|---' * 10 + '|')
predictable_table('allreduce', exc, ('predicted_scatter', 'clairvoyant', 'clairvoyant_bcast', 'auto'), by_round=True)

print('\n**The Reduce under one late rank or a staircase at 1 Gbit/s** (its non-roots leave before the last '
      'arrival, so native\'s excess is about 0 or negative: ē over native\'s, the median call, rounds pooled)\n')
print('| MPI | p | size | pattern | Clairvoyant | predicted chain | `auto` | `auto` planned |')
print('|---' * 8 + '|')
predictable_table('reduce', ela, ('clairvoyant', 'predicted_chain', 'auto'))

print('\n**Fresh random delays at 1 Gbit/s**: `auto`\'s median call over the arrival chain\'s, ē (the '
      'Allreduce\'s excess in brackets), and what `auto` planned\n')
print('| MPI | p | collective | 64 KiB | 128 KiB | 256 KiB | 512 KiB | 1 MiB | 4 MiB |')
print('|---' * 9 + '|')
for group in sorted({k[:4] for k in ela if k[0] == '1 Gbit/s'}, key=lambda g: (g[1] != 'Open MPI', -g[2], g[3])):
    cells = []
    for n in (64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20):
        k = group + (n, 'uniform')
        if k not in ela:
            cells.append('—')
            continue
        r = f"{med(ela[k]['auto']) / med(ela[k]['arrival_chain']):.2f}"
        if group[3] == 'allreduce':
            r += f" ({med(exc[k]['auto']) / med(exc[k]['arrival_chain']):.2f})"
        cells.append(r + (f" [{planned[k]}]" if planned[k] else ''))
    print(f'| {group[1]} | {group[2]} | {group[3]} | ' + ' | '.join(cells) + ' |')
