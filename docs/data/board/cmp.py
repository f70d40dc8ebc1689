import gzip,json,sys,statistics as st
def load(f):
    d=json.load(gzip.open(f) if f.endswith('.gz') else open(f)); out={}
    for s in d['results']['sizes']:
        for p in s['points']:
            out[(s['bytes']//1024,p['pattern'],p['max_delay'])]={a['name']:a for a in p['algorithms']}
    return out
files=sys.argv[1:]
data=[load(f) for f in files]
print("KiB pattern D | per file: auto/native mean (median) | DL/native mean (median) | auto/DL median")
for k in data[0]:
    row=[]
    for d in data:
        a=d.get(k)
        n=a['native']['median_elapsed_s']; dl=a['dynamic_leader']; au=a['auto']
        row.append(f"{au['elapsed_ratio']:.2f} ({au['median_elapsed_s']/n:.2f}) | {dl['elapsed_ratio']:.2f} ({dl['median_elapsed_s']/n:.2f}) | {au['median_elapsed_s']/dl['median_elapsed_s']:.2f}")
    print(k, ' || '.join(row))
