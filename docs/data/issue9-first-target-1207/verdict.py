#!/usr/bin/env python3
"""Issue 9's first target from matrix.sh's runs: per cell (p, size, pattern) the Allreduce's
excess over the unavoidable wait divided by native's in the same run, as the mean over the 20
calls and as the median call, for each algorithm; and native's and `auto`'s median excess in
vector times (the vector's bytes at the emulated link's payload rate, 0.95 Gbit/s) and in
the floor no Allreduce's mean excess goes below, as a fraction of native's: every early rank
needs a result that depends on all of L's vector, whose last byte leaves L no sooner than
(n - 250 KB)/rate after L arrives (a link idle for 2 ms passes 250 KB at once), so the mean
over the p ranks is at least (p - 1)/p of that."""
import glob, gzip, json, statistics as st, sys
from collections import defaultdict

RATE = 0.95e9 / 8  # payload bytes/s at 1 Gbit/s
BURST = 250e3


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


def size_name(b):
    return f'{b >> 20} MiB' if b >= 1 << 20 else f'{b >> 10} KiB'


def excesses(x):
    return [e - u for e, u in zip(x['elapsed_s'], x['unavoidable_wait_s'])]


cells = defaultdict(list)
names = None
for f in sorted(sys.argv[1:]):
    d = load(f)
    p = d['ranks']
    mpi = d['mpi_build']
    for size in d['results']['sizes']:
        n = size['bytes']
        for point in size['points']:
            a = {x['name']: x for x in point['algorithms']}
            names = [k for k in a if k != 'native']
            nat = a['native']
            nmed = st.median(excesses(nat))
            row = {'nat_ms': nmed * 1e3, 'nat_vt': nmed / (n / RATE),
                   'burst_floor': (p - 1) / p * max(n - BURST, 0) / RATE / nmed}
            for k in names:
                x = a[k]
                row[k] = (x['mean_excess_s'] / nat['mean_excess_s'], st.median(excesses(x)) / nmed,
                          x['plans']['planned'] if x.get('plans') else None)
            row['auto_ms'] = st.median(excesses(a['auto'])) * 1e3
            cells[(mpi, p, n, point['pattern'])].append(row)

print('| MPI | p | size | pattern | native\'s median excess, ms (vector times) | burst floor / native | '
      + ' | '.join(k.replace('_', ' ') + ': median call / mean' for k in names) + ' | `auto`\'s median excess, ms |')
print('|---' * (len(names) + 7) + '|')
for key in sorted(cells, key=lambda k: (k[0] != 'openmpi', -k[1], k[2], k[3])):
    rows = cells[key]
    mpi, p, n, pat = key
    nat = ', '.join(f"{r['nat_ms']:.2f} ({r['nat_vt']:.2f})" for r in rows)
    floor = ', '.join(f"{r['burst_floor']:.2f}" for r in rows)
    algs = []
    for k in names:
        algs.append(', '.join(f"{r[k][1]:.2f} / {r[k][0]:.2f}" + (f" [{r[k][2]}]" if k == 'auto' else '') for r in rows))
    auto_ms = ', '.join(f"{r['auto_ms']:.2f}" for r in rows)
    print(f"| {'Open MPI' if mpi == 'openmpi' else 'MPICH'} | {p} | {size_name(n)} | {pat} | {nat} | {floor} | "
          + ' | '.join(algs) + f' | {auto_ms} |')
