# Excess of BDR over the ring per JSON of paired-run.sh (and the per-algorithm means and medians).
# Usage: python3 paired.py FILE.json...
import json,sys,statistics as st
for f in sys.argv[1:]:
    d=json.load(open(f))
    for s in d['results']['sizes']:
        for p in s['points']:
            a={x['name']:x for x in p['algorithms']}
            out=[]
            for n,x in a.items():
                out.append(f"{n}: e={x['mean_elapsed_s']*1e3:.1f}ms exc={x['mean_excess_s']*1e3:.1f} med_exc={st.median([e-u for e,u in zip(x['elapsed_s'],x['unavoidable_wait_s'])])*1e3:.1f} plans={x.get('plans',{}).get('planned','-')}")
            r=a['bdr']['mean_excess_s']/a['ring']['mean_excess_s'] if 'bdr' in a and 'ring' in a else None
            print(f"{f.split('/')[-1]} {s['bytes']} {p['pattern']}: bdr/ring excess={r:.2f} | "+' | '.join(out))
