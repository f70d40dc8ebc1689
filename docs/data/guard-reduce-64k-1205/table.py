#!/usr/bin/env python3
"""run.sh's JSON files: per p, size and delay, each algorithm's mean time in the call over
native's (e/native), one cell per round, and the median call's ratio in brackets."""
import glob, gzip, json, re, statistics as st
from collections import defaultdict

cells = defaultdict(list)
for f in sorted(glob.glob('np*-r*.json*')):
    np_, rnd = re.match(r'np(\d+)-r(\d+)', f).groups()
    d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    for size in d['results']['sizes']:
        for point in size['points']:
            algs = {a['name']: a for a in point['algorithms']}
            nat = algs['native']
            for name, a in algs.items():
                if name == 'native': continue
                cells[(int(np_), size['bytes'], point['max_delay'], name)].append(
                    (int(rnd), a['mean_elapsed_s'] / nat['mean_elapsed_s'], a['median_elapsed_s'] / nat['median_elapsed_s']))
names = ['binomial', 'pipelined_binomial', 'arrival_chain', 'auto']
print('| p | size | delay | ' + ' | '.join(names) + ' |\n|---|---|---|' + '---|' * len(names))
for key in sorted({k[:3] for k in cells}, key=lambda k: (-k[0], k[1], k[2])):
    row = [', '.join(f'{m:.2f} [{md:.2f}]' for _, m, md in sorted(cells[key + (n,)])) for n in names]
    print(f'| {key[0]} | {key[1] >> 10} KiB | {key[2]} | ' + ' | '.join(row) + ' |')
