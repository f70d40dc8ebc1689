#!/usr/bin/env python3
"""confirm.sh's JSON files (c-npN-{pred,uni}-rR.json[.gz]): per p, size, pattern and delay, each
algorithm's mean excess over native's in the same run, the median call's in brackets and
e/native in parentheses, one cell per round; what auto ran (calls of 20). Usage: table.py [NP ...]"""
import glob, gzip, json, re, statistics, sys
from collections import defaultdict

ALGS = ['clairvoyant', 'predicted_scatter', 'arrival_chain', 'auto']


def median_excess(a):
    return statistics.median(e - u for e, u in zip(a['elapsed_s'], a['unavoidable_wait_s']))


for np in sys.argv[1:] or ['8', '4']:
    cells, ran = defaultdict(list), defaultdict(list)
    for f in sorted(glob.glob(f'c-np{np}-*-r*.json*')):
        rnd = int(re.search(r'-r(\d+)\.json', f).group(1))
        d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
        for size in d['results']['sizes']:
            for point in size['points']:
                algs = {a['name']: a for a in point['algorithms']}
                nat = algs['native']
                key = (size['bytes'], point['pattern'], point['max_delay'])
                for name in ALGS:
                    a = algs[name]
                    x = a['mean_excess_s'] / nat['mean_excess_s']
                    m = median_excess(a) / median_excess(nat)
                    cells[key + (name,)].append((rnd, f"{x:.2f}[{m:.2f}] ({a['mean_elapsed_s'] / nat['mean_elapsed_s']:.2f})"))
                ran[key].append((rnd, ' '.join(f'{k} {v}' for k, v in sorted(algs['auto']['ran'].items()))))
    print(f'\np = {np}: excess/native [median call] (e/native) per round; what auto ran\n')
    print('| size | pattern | delay | ' + ' | '.join(ALGS) + ' | auto ran |\n' + '|---' * (len(ALGS) + 4) + '|')
    for key in sorted({k[:3] for k in cells}):
        row = [', '.join(c for _, c in sorted(cells[key + (n,)])) for n in ALGS]
        print(f'| {key[0] >> 10} KiB | {key[1]} | {key[2]} | ' + ' | '.join(row) + ' | ' + '; '.join(r for _, r in sorted(ran[key])) + ' |')
