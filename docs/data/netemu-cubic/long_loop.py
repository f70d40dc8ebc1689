# A long loop's excess per algorithm as a ratio to native's: mean, median, calls more than 3 tau
# above the median. Usage: python3 long_loop.py FILE.json...
import json,sys,statistics as st
for f in sys.argv[1:]:
    d=json.load(open(f))
    for s in d['results']['sizes']:
        print(f"\n{f} bytes={s['bytes']} tau={s['tau_s']*1e3:.2f} ms")
        for p in s['points']:
            a={x['name']:x for x in p['algorithms']}
            nat=a['native']
            def exc(x): return [e-u for e,u in zip(x['elapsed_s'],x['unavoidable_wait_s'])]
            ne=exc(nat); nmean=st.mean(ne); nmed=st.median(ne)
            row=[f"{p['pattern']} native e={nat['mean_elapsed_s']*1e3:.0f}ms exc mean/med {nmean*1e3:.1f}/{nmed*1e3:.1f}"]
            for n,x in a.items():
                if n=='native': continue
                e=exc(x); med=st.median(e)
                slow=sum(1 for v in e if v>med+3*s['tau_s'])
                pl=x.get('plans',{})
                row.append(f"{n}: e/nat {x['mean_elapsed_s']/nat['mean_elapsed_s']:.2f} exc mean {st.mean(e)/nmean:.2f} med {med/nmed:.2f} [{pl.get('planned','-')}/{pl.get('planned',0)+pl.get('unplanned',0)}] slow>3tau {slow} (max {max(e)*1e3:.0f}ms)")
            if 'bdr' in a and 'ring' in a:
                re_=exc(a['ring']); be=exc(a['bdr'])
                row.append(f"bdr/min(nat,ring) mean {st.mean(be)/min(nmean,st.mean(re_)):.2f} median {st.median(be)/min(nmed,st.median(re_)):.2f}")
            print("\n   ".join(row))
