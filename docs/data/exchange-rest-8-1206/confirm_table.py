#!/usr/bin/env python3
"""confirm.sh's JSON files: per collective, first pattern, size and pattern, auto's e/native
(excess/native) before (rest after 16) and after (8), the chain's e/native, auto's exchanges;
then, under fresh random delays, auto's e minus the chain's in % of native's e."""
import collections, glob, gzip, json, statistics
cells = collections.defaultdict(lambda: collections.defaultdict(list))
gap = collections.defaultdict(list)
for f in sorted(glob.glob('confirm/*.json*')):
    try:
        j = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    except ValueError:
        continue  # a run still writing
    name = f.split('/')[1].split('.')[0]
    coll, rest = name.split('-', 1)
    first, when = rest.split('-first-')[0], rest.split('-first-')[1].split('-')[0]
    for s in j['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            n = a['native']['mean_elapsed_s']
            u, c = a['auto'], a['arrival_chain']
            cells[(coll, first, s['bytes'] >> 10, p['pattern'])][when].append(
                f"{u['mean_elapsed_s'] / n:.3f}({u['mean_excess_s'] / a['native']['mean_excess_s']:.2f}) "
                f"chain {c['mean_elapsed_s'] / n:.3f} ex {u['plans']['exchanges']} "
                + ','.join(f"{k[:4]}{v}" for k, v in sorted(u['ran'].items())))
            if p['pattern'] == 'uniform':
                ran = '+'.join(sorted(u['ran']))
                gap[(coll, when, f'auto ran {ran}')].append((u['mean_elapsed_s'] - c['mean_elapsed_s']) / n * 100)
for k in sorted(cells):
    print(' '.join(map(str, k)))
    for when in ('before', 'after'):
        print(f"   {when:6} " + ' | '.join(cells[k][when]))
print('\nfresh random delays: auto e - chain e, % of native e')
for k in sorted(gap):
    print(' '.join(k), f"n={len(gap[k])} mean {statistics.mean(gap[k]):+.2f} range {min(gap[k]):+.1f}..{max(gap[k]):+.1f}")
