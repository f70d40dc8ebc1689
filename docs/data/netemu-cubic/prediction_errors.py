# The largest prediction error of each call, in tau, with each rank measured from its call's
# earliest arrival (the guard's measure): the prediction the exchange carries (made at entry:
# entry + smoothed time inside + smoothed interval, recomputed here from the arrivals and
# exits with the predictor's EMA, alpha 0.25) against the one in the trace's
# predicted_arrival_s (before 3dfddbc: refined at the exit; since: the same as the first).
# Usage: python3 prediction_errors.py CALLS.csv[.gz] TAU_MS ALGORITHM
import csv,collections,sys,statistics as st
d=sys.argv[1]; tau=float(sys.argv[2])*1e-3; alpha=0.25; want=sys.argv[3]
import gzip
rows=list(csv.DictReader((gzip.open(d,'rt') if d.endswith('.gz') else open(d))))
per=collections.defaultdict(list)
for r in rows: per[(r['comm'],int(r['rank']))].append(r)
pred={}
def ema(v,x): return x if v is None else alpha*x+(1-alpha)*v
for (comm,rank),calls in per.items():
    calls.sort(key=lambda r:int(r['seq'])); E=C=None; ne=nc=0; lastf=None
    for r in calls:
        a=float(r['arrival_s']); f=float(r['exit_s']); k=int(r['seq'])
        if lastf is not None: C=ema(C,a-lastf); nc+=1
        if ne>=2 and nc>=2: pred[(comm,k+1,rank)]=a+E+C
        E=ema(E,f-a); ne+=1; lastf=f
by=collections.defaultdict(dict)
for r in rows: by[(r['comm'],int(r['seq']))][int(r['rank'])]=r
E1=[];E2=[];S1=[];S2=[]
for key in sorted(by):
    rs=by[key]; n=len(rs)
    if rs[0]['algorithm']!=want: continue
    if not all((key[0],key[1],i) in pred for i in range(n)) or not all(rs[i]['predicted_arrival_s'] for i in range(n)): continue
    a=[float(rs[i]['arrival_s']) for i in range(n)]
    for P,E,S in ((([pred[(key[0],key[1],i)] for i in range(n)]),E1,S1),(([float(rs[i]['predicted_arrival_s']) for i in range(n)]),E2,S2)):
        pe=[x-min(P) for x in P]; ae=[x-min(a) for x in a]
        E.append(max(abs(x-y) for x,y in zip(pe,ae))/tau); S.append((max(P)-min(P))/tau)
def q(v): v=sorted(v); return 'median %.2f p90 %.2f max %.2f'%(st.median(v),v[int(0.9*(len(v)-1))],v[-1])
print(d,want,len(E1),'entry err',q(E1),'| traced err',q(E2)); print('   spread entry',q(S1),'| traced',q(S2))
