import gzip,json,sys
def load(f):
    d=json.load(gzip.open(f) if f.endswith('.gz') else open(f)); out={}
    for s in d['results']['sizes']:
        for p in s['points']:
            out[(s['bytes']//1024,p['pattern'],p['max_delay'])]={a['name']:a for a in p['algorithms']}
    return out
def rng(v): return f"{min(v):.2f}-{max(v):.2f}"
for label,files in [("p8",["shm8-%s-b.json.gz","shm8-%s-c.json.gz"]),("p4",["shm4-%s-e.json.gz"])]:
    for v in ["before","after"]:
        rat=[];aun=[];dln=[];bal=[]
        for f in files:
            d=load(f%v)
            for k,a in d.items():
                n=a['native']['median_elapsed_s']
                if k[2]=='0':
                    bal.append(a['auto']['median_elapsed_s']/n); continue
                rat.append(a['auto']['median_elapsed_s']/a['dynamic_leader']['median_elapsed_s'])
                aun.append(a['auto']['elapsed_ratio']); dln.append(a['dynamic_leader']['elapsed_ratio'])
        s=sorted(rat)
        print(label,v,"auto/DL median-ratio",rng(rat),"median of them %.2f"%s[len(s)//2],"| auto ē/native",rng(aun),"| DL ē/native",rng(dln),"| D=0 auto median/native",rng(bal))
