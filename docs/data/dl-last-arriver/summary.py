# The dynamic leader with the last arriver finishing (last-arriver-finishes.diff, not kept)
# against the leader finishing (4f9c4e6): Open MPI, p = 8, shared memory, four runs each,
# builds alternating. Usage: python3 summary.py  (from any directory)
import gzip,json,os,statistics as st
here=os.path.dirname(os.path.abspath(__file__))
def load(f):
    d=json.load(gzip.open(f)); out={}
    for s in d['results']['sizes']:
        for pt in s['points']:
            a={x['name']:x for x in pt['algorithms']}
            out[(s['bytes'],pt['pattern'],pt['max_delay'])]=a
    return out
tags=['1','2','3','4']
for tag in ['before','after']:
    runs=[load(os.path.join(here,f'dl-{tag}{i}.json.gz')) for i in tags]
    print(tag)
    for k in runs[0]:
        e=[r[k]['dynamic_leader']['elapsed_ratio'] for r in runs]
        x=[r[k]['dynamic_leader']['excess_ratio'] for r in runs]
        ea=[r[k]['auto']['elapsed_ratio'] for r in runs]
        xn=[r[k]['native']['mean_excess_s']*1e6 for r in runs]
        xd=[r[k]['dynamic_leader']['mean_excess_s']*1e6 for r in runs]
        print(f"  {k[0]:>6} {k[1]:9} {k[2]:6} DL e/nat {min(e):.2f}-{max(e):.2f} (med {st.median(e):.2f})  x/nat {min(x):.2f}-{max(x):.2f} (med {st.median(x):.2f})  native x {st.median(xn):.1f}us DL x {st.median(xd):.1f}us  auto e/nat {min(ea):.2f}-{max(ea):.2f}")
