#!/usr/bin/env python3
"""confirm.sh's JSON files: per p, ranks per node, size, pattern and delay, the tree's, the
chain's and auto's mean time in the call over native's, one cell per round [median call's
ratio], and what auto ran."""
import glob, gzip, json, re
from collections import defaultdict

cells, ran = defaultdict(list), defaultdict(list)
for f in sorted(glob.glob('c-np*-r*.json*')):
    np_, per, rnd = re.match(r'c-np(\d+)-per(\d+)-\w+-r(\d+)', f).groups()
    d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    for size in d['results']['sizes']:
        for point in size['points']:
            algs = {a['name']: a for a in point['algorithms']}
            nat = algs['native']
            key = (int(np_), int(per), size['bytes'], point['pattern'], point['max_delay'])
            for name in ('pipelined_binomial', 'arrival_chain', 'auto'):
                a = algs[name]
                cells[key + (name,)].append((int(rnd), a['mean_elapsed_s'] / nat['mean_elapsed_s'],
                                             a['median_elapsed_s'] / nat['median_elapsed_s']))
            ran[key].append((int(rnd), ' '.join(f'{k} {v}' for k, v in sorted(algs['auto']['ran'].items()))))
print('| p | per node | size | pattern | delay | pipelined_binomial | arrival_chain | auto | auto ran |')
print('|---|---|---|---|---|---|---|---|---|')
for key in sorted({k[:5] for k in cells}, key=lambda k: (-k[0], k[1], k[2], k[3], k[4])):
    row = [', '.join(f'{m:.2f} [{md:.2f}]' for _, m, md in sorted(cells[key + (n,)]))
           for n in ('pipelined_binomial', 'arrival_chain', 'auto')]
    print(f'| {key[0]} | {key[1]} | {key[2] >> 10} KiB | {key[3]} | {key[4]} | ' + ' | '.join(row) +
          ' | ' + '; '.join(r for _, r in sorted(ran[key])) + ' |')
