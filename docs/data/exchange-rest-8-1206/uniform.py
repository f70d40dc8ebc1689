#!/usr/bin/env python3
"""Under fresh random delays: auto's e/native minus the chain's, per variant, sequence and size."""
import glob, gzip, json, statistics, collections
d = collections.defaultdict(list)
ex = collections.defaultdict(list)
for seq in ('uni', 'seq', 'rev'):
    for f in sorted(glob.glob(f'{seq}/*.json*')):
        j = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
        var = f.split('/')[1].rsplit('-r', 1)[0]
        for s in j['results']['sizes']:
            for p in s['points']:
                if p['pattern'] != 'uniform': continue
                a = {x['name']: x for x in p['algorithms']}
                n = a['native']['mean_elapsed_s']
                diff = (a['auto']['mean_elapsed_s'] - a['arrival_chain']['mean_elapsed_s']) / n * 100
                d[(var, seq, s['bytes'] >> 10)].append(diff)
                ex[(var, seq, s['bytes'] >> 10)].append(a['auto']['plans']['exchanges'])
print('variant seq KiB: auto - chain, % of native e (each run) | mean | exchanges')
allv = collections.defaultdict(list)
for k in sorted(d):
    allv[k[0]] += d[k]
    print(k, ' '.join(f'{x:+.1f}' for x in d[k]), f'| {statistics.mean(d[k]):+.2f} |', ex[k])
for v, xs in sorted(allv.items()):
    print(v, f'n={len(xs)} mean {statistics.mean(xs):+.2f} sd {statistics.stdev(xs):.2f}')
