#!/usr/bin/env python3
import glob, gzip, json, statistics, sys, collections
rows = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else '*.json*')):
    d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    var = f.rsplit('-r', 1)[0]
    for s in d['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            n = a['native']
            e = lambda k: a[k]['mean_elapsed_s'] / n['mean_elapsed_s']
            x = lambda k: a[k]['mean_excess_s'] / n['mean_excess_s']
            rows[(s['bytes'] >> 10, p['pattern'], var)].append(
                f"auto {e('auto'):.3f}/{x('auto'):.2f} chain {e('arrival_chain'):.3f}/{x('arrival_chain'):.2f} "
                f"ex {a['auto']['plans']['exchanges']} ran {dict(a['auto']['ran'])}")
for k in sorted(rows):
    print(k, '\n   ' + '\n   '.join(rows[k]))
