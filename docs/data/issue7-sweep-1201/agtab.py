# python3 agtab.py FILE.json[.gz]...: tables of issue 7's sweep: per size, pattern and delay, native's e and LB, then per algorithm
# e/native (excess/native); and BDR's and auto's excess over the smaller of native's and the ring's.
import gzip,json,sys
open_json=lambda f: json.load(gzip.open(f) if f.endswith('.gz') else open(f))
def fmt_ms(x): return f"{x*1e3:.2f}" if x<0.01 else f"{x*1e3:.1f}"
for f in sys.argv[1:]:
  d=open_json(f)
  sizes=d['results']['sizes']
  algs=[a['name'] for a in sizes[0]['points'][0]['algorithms']]
  blocks=d['options'].get('blocks') if isinstance(d.get('options'),dict) else None
  print(f"\n{f}: {d['ranks']} ranks, {d.get('network') or 'shared memory'}, {d['mpi_library'][:40]}, {d['date_utc']}, load {d['load_average_at_start']} -> {d['load_average_at_end']}")
  print("| size | pattern | D | ω/τ | native ē ms | LB ms | " + " | ".join(a for a in algs if a!='native') + " | bdr/min(nat,ring) | auto/min(nat,ring) | auto/best classic |")
  print("|---|---|---|---|---|---|" + "---|"*(len(algs)-1) + "---|---|---|")
  for s in sizes:
    for p in s['points']:
      A={a['name']:a for a in p['algorithms']}
      nat=A['native']
      cells=[]
      for a in algs:
        if a=='native': continue
        x=A[a]; pl=x.get('plans') or {}
        tag=f" [{pl.get('planned')}]" if a in ('bdr','bslb','auto') and pl.get('planned') else ""
        cells.append(f"{x['elapsed_ratio']:.2f} ({x['excess_ratio']:.2f}){tag}")
      sz = f"{s['bytes']>>10} KiB" if s['bytes']<(1<<20) else f"{s['bytes']>>20} MiB"
      ex=lambda a: A[a]['mean_excess_s']
      base=min(ex('native'), ex('ring')) if 'ring' in A else ex('native')
      classic=[a for a in A if a in ('native','ring','sparbit','bruck','recursive_doubling','neighbor_exchange','gather_bcast')]
      best_e=min(A[a]['mean_elapsed_s'] for a in classic)
      r=lambda a: f"{ex(a)/base:.2f}" if a in A and base>0 else "–"
      au=f"{A['auto']['mean_elapsed_s']/best_e:.2f}" if 'auto' in A else "–"
      print(f"| {sz} | {p['pattern']} | {p['max_delay']} | {p['median_imbalance_factor']:.1f} | {fmt_ms(nat['mean_elapsed_s'])} | {fmt_ms(nat['mean_unavoidable_wait_s'])} | " + " | ".join(cells)+f" | {r('bdr')} | {r('auto')} | {au} |")
