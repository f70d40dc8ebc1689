import json,sys,statistics as st,gzip
for f in sys.argv[1:]:
    d=json.load(gzip.open(f) if f.endswith('gz') else open(f))
    print(f, 'p =',d['ranks'])
    for size in d['results']['sizes']:
        for pt in size['points']:
            a={x['name']:x for x in pt['algorithms']}
            nat=a['native']
            nx=[e-u for e,u in zip(nat['elapsed_s'],nat['unavoidable_wait_s'])]
            row=[]
            for n,x in a.items():
                if n=='native': continue
                xs=[e-u for e,u in zip(x['elapsed_s'],x['unavoidable_wait_s'])]
                row.append(f"{n} {x['mean_excess_s']/nat['mean_excess_s']:.2f}/{st.median(xs)/st.median(nx):.2f}[{x['plans']['planned'] if x.get('plans') else '-'}]")
            print(f"  {size['bytes']>>10}K {pt['pattern']:10} nat {nat['mean_excess_s']*1e3:.2f}ms med {st.median(nx)*1e3:.2f}ms | "+'  '.join(row))
