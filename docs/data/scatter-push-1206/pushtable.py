import json,sys,statistics as st,gzip,glob
from collections import defaultdict
cells=defaultdict(lambda: defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv)>1 else 'e[1-4]-np*.json*')):
    d=json.load(gzip.open(f) if f.endswith('gz') else open(f))
    p=d['ranks']
    for size in d['results']['sizes']:
        for pt in size['points']:
            a={x['name']:x for x in pt['algorithms']}
            nx=[e-u for e,u in zip(a['native']['elapsed_s'],a['native']['unavoidable_wait_s'])]
            for n in ('predicted_scatter','scatter_early'):
                xs=[e-u for e,u in zip(a[n]['elapsed_s'],a[n]['unavoidable_wait_s'])]
                cells[(p,size['bytes'],pt['pattern'])][n].append(f"{st.median(xs)/st.median(nx):.2f}")
def sz(b): return f"{b>>20} MiB" if b>=1<<20 else f"{b>>10} KiB"
print("| p | size | pattern | swap | push |\n|---|---|---|---|---|")
for k in sorted(cells):
    c=cells[k]; print(f"| {k[0]} | {sz(k[1])} | {k[2]} | {', '.join(c['predicted_scatter'])} | {', '.join(c['scatter_early'])} |")
