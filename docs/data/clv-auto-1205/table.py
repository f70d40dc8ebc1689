#!/usr/bin/env python3
"""sweep.sh's JSON files: per p, size, pattern and delay, each algorithm's excess over native's
(x/native) and e/native, one cell per round; for auto what it ran (calls of 20).
confirm.sh's files with PREFIX c-openmpi- or c-mpich-. Usage: table.py [--prefix PREFIX] [NP ...]"""
import glob, gzip, json, re, sys
from collections import defaultdict

args = sys.argv[1:]
prefix = ''
if args[:1] == ['--prefix']:
    prefix, args = args[1], args[2:]
for np in args or ['8', '4']:
    ALGS = ['clairvoyant', 'predicted_scatter', 'auto']
    cells = defaultdict(list)  # (bytes, pattern, delay, alg) -> [(round, x, e)]
    ran = defaultdict(list)
    for f in sorted(glob.glob(f'{prefix}np{np}-*-r*.json*')):
        rnd = int(re.search(r'-r(\d+)\.json', f).group(1))
        d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
        for size in d['results']['sizes']:
            for point in size['points']:
                algs = {a['name']: a for a in point['algorithms']}
                if 'arrival_chain' in algs and 'arrival_chain' not in ALGS: ALGS.insert(2, 'arrival_chain')
                nat = algs['native']
                key = (size['bytes'], point['pattern'], point['max_delay'])
                for name in ALGS:
                    a = algs[name]
                    x = a['mean_excess_s'] / nat['mean_excess_s'] if nat['mean_excess_s'] > 0 else float('nan')
                    cells[key + (name,)].append((rnd, x, a['mean_elapsed_s'] / nat['mean_elapsed_s']))
                ran[key].append((rnd, ' '.join(f'{k} {v}' for k, v in sorted(algs['auto']['ran'].items()))))
    print(f'\n{prefix}p = {np}: x/native (e/native) per round, in round order; what auto ran\n')
    print('| size | pattern | delay | ' + ' | '.join(ALGS) + ' | auto ran |\n|---' * 1 + '|---' * (len(ALGS) + 3) + '|')
    for key in sorted({k[:3] for k in cells}, key=lambda k: (k[0], k[1], k[2])):
        row = [', '.join(f'{x:.2f} ({e:.2f})' for _, x, e in sorted(cells[key + (n,)])) for n in ALGS]
        what = '; '.join(r for _, r in sorted(ran[key]))
        print(f'| {key[0] >> 10} KiB | {key[1]} | {key[2]} | ' + ' | '.join(row) + f' | {what} |')
