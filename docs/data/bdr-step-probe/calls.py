# Analyses the probe's DBG lines (stderr of a run with XDBG_STEPS=1 and step-timestamps.patch):
# per call that ran a plan, each rank's arrival, its wait for background receives and its exit
# after the last arrival. Usage: python3 calls.py STDERR_FILE
import re,collections,sys
P=8
lines=[l for l in open(sys.argv[1]) if l.startswith('DBG')]
seqs=collections.defaultdict(list); pend={}
for l in lines:
    if l.startswith('DBGW'):
        m=re.match(r'DBGW rank (\d+) enter ([\d.]+)',l); pend[int(m[1])]=float(m[2]); continue
    m=re.match(r'DBG rank (\d+) first (\d+) t0 ([\d.]+) \|(.*)',l)
    r=int(m[1]); steps=re.findall(r's(\d+)((?: [<>]\d+)*) @([\d.]+)',m[4])
    t0=float(m[3]); enter=pend.pop(r,None) if int(m[2])>0 else None
    seqs[r].append(dict(first=int(m[2]),t0=t0,enter=enter if enter else t0,steps=[(int(a),b.strip(),float(c)) for a,b,c in steps]))
n=len(seqs[0])
tot=collections.Counter()
for i in range(n):
    calls=[seqs[r][i] for r in range(P)]
    if max(len(c['steps'])+c['first'] for c in calls)<=7: continue
    arr=[c['enter'] for c in calls]; last=max(arr); base=min(arr)
    ex=[c['steps'][-1][2] if c['steps'] else c['t0'] for c in calls]
    wait=[c['t0']-c['enter'] for c in calls]
    pattern='staircase' if sorted(range(P),key=lambda r:arr[r])==list(range(P)) else 'one-late'
    print(f"call {i} {pattern} arr "+' '.join(f"{(a-base)*1e3:5.0f}" for a in arr)+" | bgwait "+' '.join(f"{w*1e3:4.0f}" for w in wait)+" | exit-last "+' '.join(f"{(e-last)*1e3:4.0f}" for e in ex)+f" | mean {(sum(ex)/P-last)*1e3:5.1f}")
