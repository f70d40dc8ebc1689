# Run in this folder: python3 summary.py rpn2 new v3
# python3 summary.py TAG...: per build tag and collective, ranges over the runs' points (p = 8, 64/128 KiB) of
# each algorithm's e/native, auto's e over the best classic's (native, ring, Sparbit, Bruck), and for the
# balanced (D = 0) and uniform (fresh random) points separately; what auto ran.
import glob, gzip, json, sys, collections
load = lambda f: json.load(gzip.open(f) if f.endswith('.gz') else open(f))
for tag in sys.argv[1:]:
  for coll in ('allgather', 'allgatherv'):
    files = sorted(glob.glob(f'{tag}-{coll}-*.json*'))
    if not files: continue
    R = collections.defaultdict(list); ran = collections.Counter()
    for f in files:
      for s in load(f)['results']['sizes']:
        kib = s['bytes'] >> 10
        for p in s['points']:
          A = {a['name']: a for a in p['algorithms']}
          best = min(A[a]['mean_elapsed_s'] for a in A if a in ('native', 'ring', 'sparbit', 'bruck'))
          bal = p['max_delay'] == '0'
          for a in A:
            if a == 'native': continue
            R[(kib, a, 'all')].append(A[a]['elapsed_ratio'])
            if bal: R[(kib, a, 'balanced')].append(A[a]['elapsed_ratio'])
          R[(kib, 'auto/best', 'all')].append(A['auto']['mean_elapsed_s'] / best)
          if p['pattern'] == 'uniform' and not bal: R[(kib, 'auto/best', 'uniform D>0')].append(A['auto']['mean_elapsed_s'] / best)
          ran.update(A['auto'].get('ran', {}))
    print(f'\n{tag} {coll} ({len(files)} runs) auto ran: {dict(ran) or "not recorded"}')
    for k in sorted(R): print(f'  {k[0]:>4} KiB {k[1]:<10} {k[2]:<12} {min(R[k]):.2f}-{max(R[k]):.2f}  (n={len(R[k])})')
