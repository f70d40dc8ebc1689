#!/usr/bin/env python3
"""confirm.sh's (and fresh.sh's, loop.sh's) JSON files: per p, size, pattern and delay, auto's and the ring's e/native
(balanced, D = 0) or excess/native (10 tau), with the rule (new) and before it (old), one entry
per round, and what auto ran (calls per algorithm, summed over rounds)."""
import collections, glob, gzip, json, sys
d = sys.argv[1] if len(sys.argv) > 1 else '.'
cells = collections.defaultdict(lambda: collections.defaultdict(list))
ran = collections.defaultdict(collections.Counter)
for f in sorted(glob.glob(f'{d}/np*.json*')):
    j = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    np, build = f.split('/')[-1].split('-')[:2]
    for s in j['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            n = a['native']
            balanced = p['max_delay_s'] == 0
            if balanced and p['pattern'] != 'uniform': continue  # D = 0 is the same for every pattern
            key = (int(np[2:]), s['bytes'] >> 10, 'balanced' if balanced else p['pattern'])
            for k in ('ring', 'auto'):
                if k not in a: continue  # fresh.sh runs native and auto only
                v = a[k]
                r = v['mean_elapsed_s'] / n['mean_elapsed_s'] if balanced else v['mean_excess_s'] / n['mean_excess_s']
                cells[key][f'{k} {build}'].append(r)
            ran[key + (build,)].update(a['auto']['ran'])
print('p KiB pattern (e/native balanced, excess/native at 10 tau) | per build: ring, auto per round | auto ran (new; old)')
for key in sorted(cells):
    c = cells[key]
    cols = '  '.join(f"{k} {'/'.join(f'{x:.2f}' for x in c[k])}" for k in ('ring new', 'auto new', 'auto old') if k in c)
    runs = lambda b: ' '.join(f'{k} {v}' for k, v in sorted(ran[key + (b,)].items()))
    print(*key, '|', cols, '|', runs('new'), ';', runs('old'))
