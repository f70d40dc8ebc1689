#!/usr/bin/env python3
"""sweep.sh (and threshold.sh)'s JSON files: per p, size and delay, each algorithm's e/native (balanced, D = 0) or
excess/native (fresh random delays), one entry per round."""
import collections, glob, gzip, json, sys
d = sys.argv[1] if len(sys.argv) > 1 else '.'
cells = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f'{d}/np*.json*')):
    j = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    np = int(f.split('/')[-1].split('-')[0][2:])
    for s in j['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            n = a['native']
            balanced = p['max_delay_s'] == 0
            key = (np, s['bytes'] >> 10, 'balanced e' if balanced else 'random excess')
            for k, v in a.items():
                if k == 'native': continue
                r = v['mean_elapsed_s'] / n['mean_elapsed_s'] if balanced else v['mean_excess_s'] / n['mean_excess_s']
                cells[key][k].append(r)
print('p KiB measure: algorithm ratio to native per round')
for key in sorted(cells):
    print(*key, '| ' + '  '.join(f"{k} {'/'.join(f'{x:.2f}' for x in v)}" for k, v in cells[key].items()))
