# python3 bal8tab.py: issue 8's balanced table from bal8-*.json[.gz]: per case and size, auto's mean e over
# native's (median over median in parentheses), the two runs side by side; and what auto ran.
import collections, glob, gzip, json, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_log import auto_over_native, size_label

load = lambda f: json.load(gzip.open(f) if f.endswith('.gz') else open(f))
cells = collections.defaultdict(lambda: collections.defaultdict(list)); sizes = set(); ran = collections.defaultdict(collections.Counter)
for f in sorted(glob.glob('bal8-*.json*')):
    case = re.sub(r'-\d\.json.*$', '', f[len('bal8-'):])
    for s in load(f)['results']['sizes']:
        text, what = auto_over_native(s)
        cells[case][s['bytes']].append(text)
        ran[case].update(what)
        sizes.add(s['bytes'])
cols = sorted(sizes)
print("| case | " + " | ".join(size_label(b) for b in cols) + " | auto ran |")
print("|---|" + "---|" * (len(cols) + 1))
for case in sorted(cells):
    print(f"| {case} | " + " | ".join("; ".join(cells[case].get(b, [])) or "–" for b in cols) + f" | {dict(ran[case])} |")
