# Per planned call of a probe log (step-timestamps.patch + helper-completions.patch): for each rank
# with background receives, when each of them was sent (the sender's step start-end) and received
# (on the helper thread), relative to the call's first arrival. Usage: python3 background.py LOG
import re,collections,sys
P=8
ev=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('DBGB'):
        m=re.match(r'DBGB rank (\d+) posted ([\d.]+) \|(.*)',l); ev[int(m[1])].append(('B',float(m[2]),[float(x) for x in m[3].split()]))
    elif l.startswith('DBGW'):
        m=re.match(r'DBGW rank (\d+) enter ([\d.]+)',l); ev[int(m[1])].append(('W',float(m[2])))
    elif l.startswith('DBG '):
        m=re.match(r'DBG rank (\d+) first (\d+) t0 ([\d.]+) \|(.*)',l)
        steps=re.findall(r's(\d+)((?: [<>]\d+)*) @([\d.]+)',m[4])
        ev[int(m[1])].append(('X',int(m[2]),float(m[3]),[(int(a),b.strip(),float(c)) for a,b,c in steps]))
# per rank, list of calls: X events; attach preceding W and B
calls=collections.defaultdict(list)
for r in range(P):
    lastB=None; lastW=None
    for e in ev[r]:
        if e[0]=='B': lastB=e
        elif e[0]=='W': lastW=e
        else:
            calls[r].append(dict(first=e[1],t0=e[2],steps=e[3],W=lastW[1] if (lastW and e[1]>0) else None,B=lastB if e[1]>0 else None))
            lastW=None
            if e[1]>0: lastB=None
n=len(calls[0])
for i in range(n):
    cs=[calls[r][i] for r in range(P)]
    if max(c['first'] for c in cs)==0: continue
    arr=[c['W'] if c['W'] else c['t0'] for c in cs]; base=min(arr); last=max(arr)
    ex=[c['steps'][-1][2] if c['steps'] else c['t0'] for c in cs]
    print(f"call {i}: mean exit-last {(sum(ex)/P-last)*1e3:.0f} ms; arr "+' '.join(f"{(a-base)*1e3:.0f}" for a in arr))
    # senders to r in steps < first
    for r in range(P):
        c=cs[r]
        if not c['B']: continue
        _,posted,times=c['B']
        snd=[]
        for q in range(P):
            prev=cs[q]['t0']
            for s,pe,t in cs[q]['steps']:
                if s<c['first'] and f'>{r}' in pe.split(): snd.append((s,q,prev,t))
                prev=t
        snd.sort()
        desc=' '.join(f"[s{s} from r{q} sent {(a-base)*1e3:.0f}-{(b-base)*1e3:.0f} recvd {(t-base)*1e3:.0f}]" for (s,q,a,b),t in zip(snd,times))
        print(f"  r{r} arr {(arr[r]-base)*1e3:.0f} bgwait {(c['t0']-arr[r])*1e3:.0f} posted {(posted-base)*1e3:.0f}: {desc}")
