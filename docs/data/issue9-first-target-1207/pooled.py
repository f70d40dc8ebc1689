#!/usr/bin/env python3
"""Issue 9's first target pooled over rounds: per cell (MPI, p, size, pattern), each
algorithm's median call's excess over the unavoidable wait divided by native's, all rounds'
calls pooled (20 a round), the means' ratio in brackets, and `auto`'s calls that ran a plan.

`floor`: every early rank needs a result that depends on all of the last arriver's vector,
whose last byte leaves it no sooner than (n - 250 KB)/rate after it arrives (the emulated
link passes 250 KB at once after 2 ms idle; rate: 95% of 1 Gbit/s as payload), so the mean
excess over the p ranks is at least (p - 1)/p of that; given over native's median call.
Usage: pooled.py JSON..."""
import gzip
import json
import statistics as st
import sys
from collections import defaultdict

RATE, BURST = 0.95e9 / 8, 250e3


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


def size_name(b):
    return f'{b >> 20} MiB' if b >= 1 << 20 else f'{b >> 10} KiB'


calls = defaultdict(lambda: defaultdict(list))
planned = defaultdict(list)
rounds = defaultdict(int)
for f in sys.argv[1:]:
    d = load(f)
    for size in d['results']['sizes']:
        for point in size['points']:
            key = (d['mpi_build'], d['ranks'], size['bytes'], point['pattern'])
            rounds[key] += 1
            for x in point['algorithms']:
                calls[key][x['name']] += [e - u for e, u in zip(x['elapsed_s'], x['unavoidable_wait_s'])]
                if x['name'] == 'auto':
                    planned[key].append(x['plans']['planned'])

names = [n for n in next(iter(calls.values())) if n != 'native']
print('| MPI | p | size | pattern | rounds | native\'s median excess, ms | floor | '
      + ' | '.join(n.replace('_', ' ') for n in names) + ' | `auto`\'s planned calls |')
print('|---' * (len(names) + 8) + '|')
for key in sorted(calls, key=lambda k: (k[0] != 'openmpi', -k[1], k[2], k[3])):
    mpi, p, n, pattern = key
    c = calls[key]
    nmed, nmean = st.median(c['native']), st.mean(c['native'])
    floor = (p - 1) / p * max(n - BURST, 0) / RATE / nmed
    cells = [f"{st.median(c[a]) / nmed:.2f} ({st.mean(c[a]) / nmean:.2f})" for a in names]
    print(f"| {'Open MPI' if mpi == 'openmpi' else 'MPICH'} | {p} | {size_name(n)} | {pattern} | {rounds[key]} | "
          f"{nmed * 1e3:.2f} | {floor:.2f} | " + ' | '.join(cells) + f" | {sum(planned[key])} of {20 * rounds[key]} |")
