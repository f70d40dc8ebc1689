# python3 bal8tab.py: issue 8's balanced table from bal8-*.json[.gz]: per case and size, auto's mean e over
# native's (median over median in parentheses), the two runs side by side; and what auto ran.
import glob, gzip, json, re, collections
load = lambda f: json.load(gzip.open(f) if f.endswith('.gz') else open(f))
cells = collections.defaultdict(lambda: collections.defaultdict(list)); sizes = set(); ran = collections.defaultdict(collections.Counter)
for f in sorted(glob.glob('bal8-*.json*')):
    case = re.sub(r'-\d\.json.*$', '', f[len('bal8-'):])
    for s in load(f)['results']['sizes']:
        A = {a['name']: a for p in s['points'] for a in p['algorithms']}
        n, a = A['native'], A['auto']
        cells[case][s['bytes']].append(f"{a['elapsed_ratio']:.2f} ({a['median_elapsed_s'] / n['median_elapsed_s']:.2f})")
        ran[case].update(a.get('ran', {}))
        sizes.add(s['bytes'])
label = lambda b: f"{b} B" if b < 1024 else (f"{b >> 10} KiB" if b < 1 << 20 else f"{b >> 20} MiB")
cols = sorted(sizes)
print("| case | " + " | ".join(label(b) for b in cols) + " | auto ran |")
print("|---|" + "---|" * (len(cols) + 1))
for case in sorted(cells):
    print(f"| {case} | " + " | ".join("; ".join(cells[case].get(b, [])) or "–" for b in cols) + f" | {dict(ran[case])} |")
