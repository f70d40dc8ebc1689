# Prints every point of the given papshim-bench JSON files (gzip or not): per algorithm
# e/native, the mean excess in tau and the planned calls. Usage: python3 show.py FILE...
import json,sys,gzip
for f in sys.argv[1:]:
    d=json.load(gzip.open(f) if f.endswith('gz') else open(f))
    print(f, 'p =', d['ranks'], 'load', d.get('load_average_at_start'))
    for s in d['results']['sizes']:
        tau=s['tau_s']
        for pt in s['points']:
            print(' ', s['bytes']>>10, 'KiB', f"{pt['pattern']:9} {pt['max_delay']:6}", ' '.join(f"{a['name']}:{a['elapsed_ratio']:.2f}/x{a['mean_excess_s']/tau:.1f}τ/{a['plans']['planned']}" for a in pt['algorithms']))
