# auto's first call, its other nine, the schedule named's first call, and the ratios of mean e to native's
import gzip,json,os,statistics as st,sys
pre=sys.argv[1:] or ['before','after']
for np in (4,8):
  for c in ('reduce','allreduce'):
    for b in pre:
      if not os.path.exists(f'{b}-r1-np{np}-{c}.json.gz'): continue  # a set run at one p only
      firsts=[];rest=[];named=[];ratio=[];nratio=[]
      for r in (1,2,3):
        d=json.load(gzip.open(f'{b}-r{r}-np{np}-{c}.json.gz'))
        al={a['name']:a for a in d['results']['sizes'][0]['points'][0]['algorithms']}
        a=al['auto']['elapsed_s']; firsts.append(a[0]*1e3); rest.append(st.mean(a[1:])*1e3)
        nm=[k for k in al if k not in('native','auto')][0]; named.append(al[nm]['elapsed_s'][0]*1e3)
        ratio.append(al['auto']['elapsed_ratio']); nratio.append(al[nm]['elapsed_ratio'])
      print(np,c,b,'auto 1st',' '.join('%.1f'%x for x in firsts),'| rest',' '.join('%.1f'%x for x in rest),'| named 1st',' '.join('%.1f'%x for x in named),'| auto/nat',' '.join('%.2f'%x for x in ratio),'| named/nat',' '.join('%.2f'%x for x in nratio))
