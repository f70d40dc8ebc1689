#!/usr/bin/env python3
"""p57.sh's JSON files: per p, size and pattern, each algorithm's mean excess over native's with
the median call's in brackets (one entry per round), and what auto ran."""
import collections, glob, gzip, json, statistics
cells = collections.defaultdict(list)
for f in sorted(glob.glob('p57/np*.json*')):
    j = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    np = f.split('/')[1].split('-')[0]
    for s in j['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            med = lambda x: statistics.median(e - u for e, u in zip(x['elapsed_s'], x['unavoidable_wait_s']))
            n = a['native']
            ratio = lambda k: f"{a[k]['mean_excess_s'] / n['mean_excess_s']:.2f}[{med(a[k]) / med(n):.2f}]"
            cells[(int(np[2:]), s['bytes'] >> 10, p['pattern'])].append(
                f"clv {ratio('clairvoyant')} chain {ratio('arrival_chain')} auto {ratio('auto')} "
                f"e {a['auto']['mean_elapsed_s'] / n['mean_elapsed_s']:.3f} ran "
                + ','.join(f"{k[:4]}{v}" for k, v in sorted(a['auto']['ran'].items())))
print('p KiB pattern: excess/native [median call], per round')
for k in sorted(cells):
    print(*k, '| ' + ' | '.join(cells[k]))
