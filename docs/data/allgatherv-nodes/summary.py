# Run in this folder: python3 summary.py
# Per p, block layout and size, ranges over the runs' points (uniform and one-late, D = 0 and 10 tau) of each
# algorithm's e/native, auto's e over the best of native, ring, Sparbit and Bruck, the same at the
# balanced points (D = 0), and what auto ran.
import glob, gzip, json, collections, re
load = lambda f: json.load(gzip.open(f) if f.endswith('.gz') else open(f))
groups = collections.defaultdict(list)
for f in sorted(glob.glob('p*-*-*.json*')):
  p, layout = re.match(r'p(\d+)-(.+)-\d+\.json', f).groups()
  groups[(int(p), layout)].append(f)
for (p, layout), files in sorted(groups.items()):
  R = collections.defaultdict(list); ran = collections.Counter()
  for f in files:
    for s in load(f)['results']['sizes']:
      kib = s['bytes'] >> 10
      for pt in s['points']:
        A = {a['name']: a for a in pt['algorithms']}
        best = min(A[a]['mean_elapsed_s'] for a in ('native', 'ring', 'sparbit', 'bruck'))
        for a in ('ring', 'sparbit', 'bruck', 'auto'): R[(kib, a)].append(A[a]['elapsed_ratio'])
        R[(kib, 'auto/best')].append(A['auto']['mean_elapsed_s'] / best)
        if pt['max_delay'] == '0': R[(kib, 'auto/best D=0')].append(A['auto']['mean_elapsed_s'] / best)
        ran.update(A['auto'].get('ran', {}))
  print(f'\np = {p}, two ranks per node, {layout} blocks ({len(files)} runs), auto ran: {dict(ran)}')
  for kib in sorted({k[0] for k in R}):
    print(f'  {kib:>5} KiB  ' + '  '.join(f'{a} {min(R[(kib, a)]):.2f}-{max(R[(kib, a)]):.2f}' for a in
                                        ('ring', 'sparbit', 'bruck', 'auto', 'auto/best', 'auto/best D=0')))
