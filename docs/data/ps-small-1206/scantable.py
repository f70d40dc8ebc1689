#!/usr/bin/env python3
"""scan.sh's JSON files (npN-kibK-rR.json[.gz], K the least chunk size, 0: 4 chunks a piece at
least): per p, size and pattern, native's excess in tau, then Clairvoyant's and the predicted
scatter's mean excess over native's with the median call's in brackets, one entry per job. Usage: scantable.py [GLOB] (default np*-kib*-r*.json*; scan4.sh's: 'p4-kib*.json*')."""
import collections, glob, gzip, json, re, statistics, sys

cells = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else 'np*-kib*-r*.json*')):
    np_, kib, _ = re.match(r'(?:np|p)(\d+)-kib(\d+)-r(\d+)', f).groups()
    d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    for s in d['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            n = a['native']
            med = lambda x: statistics.median(e - u for e, u in zip(x['elapsed_s'], x['unavoidable_wait_s']))
            ratio = lambda x: f"{x['mean_excess_s'] / n['mean_excess_s']:.2f}[{med(x) / med(n):.2f}]"
            key = (int(np_), s['bytes'] >> 10, p['pattern'])
            cells[key + ('clairvoyant',)].append(ratio(a['clairvoyant']))
            cells[key + (f'scatter, least {kib} KiB' if kib != '0' else 'scatter, 4 chunks',)].append(ratio(a['predicted_scatter']))
            cells[key + ('native/tau',)].append(f"{n['mean_excess_s'] / s['tau_s']:.2f}")
cols = ['native/tau', 'clairvoyant'] + sorted({k[3] for k in cells if k[3].startswith('scatter')})
print('| p | size | pattern | ' + ' | '.join(cols) + ' |\n' + '|---' * (len(cols) + 3) + '|')
for k in sorted({k[:3] for k in cells}):
    print(f'| {k[0]} | {k[1]} KiB | {k[2]} | ' + ' | '.join(' '.join(cells[k + (c,)]) for c in cols) + ' |')
