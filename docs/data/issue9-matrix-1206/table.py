#!/usr/bin/env python3
"""matrix.sh's JSON files ({net,shm,shm-mpich}-npN-{allreduce,reduce}-rR.json[.gz]) as markdown
tables: per run, size and pattern, native's ē and the mean excess over the unavoidable wait,
then each algorithm's ē / native's with its excess / native's in parentheses, the calls that
ran a plan in brackets (of 20) for the algorithms that plan, one cell per round; and what
`auto` ran. Usage: table.py [FILE-PREFIX ...] (default: every run)"""
import glob, gzip, json, re, sys
from collections import defaultdict

PLANNING = {'predicted_chain', 'predicted_scatter', 'clairvoyant', 'clairvoyant_bcast', 'auto'}


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


def ms(s):
    return f'{s * 1e3:.3g} ms'


prefixes = sys.argv[1:] or sorted({re.sub(r'-r\d+\.json(\.gz)?$', '', f) for f in glob.glob('*-r*.json*')})
for prefix in prefixes:
    files = sorted(glob.glob(f'{prefix}-r*.json*'))
    if not files:
        continue
    cells, natives, ran, names = defaultdict(list), defaultdict(list), defaultdict(list), []
    for f in files:
        d = load(f)
        for size in d['results']['sizes']:
            for point in size['points']:
                algs = {a['name']: a for a in point['algorithms']}
                names = [a['name'] for a in point['algorithms'] if a['name'] != 'native']
                nat = algs['native']
                key = (size['bytes'], point['pattern'])
                natives[key].append(f"{ms(nat['mean_elapsed_s'])} / {ms(nat['mean_excess_s'])}")
                for name in names:
                    a = algs[name]
                    cell = f"{a['mean_elapsed_s'] / nat['mean_elapsed_s']:.2f} ({a['mean_excess_s'] / nat['mean_excess_s']:.2f})"
                    if name in PLANNING:
                        cell += f" [{a['plans']['planned']}]"
                    cells[key + (name,)].append(cell)
                ran[key].append(' '.join(f'{k} {v}' for k, v in sorted(algs['auto']['ran'].items())))
    print(f'\n**{prefix}** ({len(files)} round{"s" if len(files) > 1 else ""}; rounds separated by commas)\n')
    print('| size | pattern | native ē / excess | ' + ' | '.join(n.replace('_', ' ') for n in names) + ' | `auto` ran |')
    print('|---' * (len(names) + 4) + '|')
    order = {'one-late': 0, 'staircase': 1, 'uniform': 2}
    for key in sorted({k[:2] for k in cells}, key=lambda k: (k[0], order.get(k[1], 9))):
        size = f'{key[0] >> 20} MiB' if key[0] >= 1 << 20 else f'{key[0] >> 10} KiB'
        row = [', '.join(cells[key + (n,)]) for n in names]
        print(f'| {size} | {key[1]} | ' + ', '.join(natives[key]) + ' | ' + ' | '.join(row) + ' | ' + '; '.join(ran[key]) + ' |')
