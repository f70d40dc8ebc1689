#!/usr/bin/env python3
"""bal.sh's table: per case and size, auto's mean e over native's (median over median in
parentheses) in dispatch mode, runs 1; 2, then the same with PAPSHIM_MODE=off (where "auto"
forwards exactly like "native", so its quotient is what the method reads when nothing differs);
and what auto ran in dispatch mode."""
import collections, glob, gzip, json, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_log import auto_over_native, size_label

cells = collections.defaultdict(lambda: collections.defaultdict(list))
ran = collections.defaultdict(collections.Counter)
sizes = set()
for f in sorted(glob.glob('*-dispatch-*.json*') + glob.glob('*-off-*.json*')):
    case, mode = re.match(r'(.+)-(dispatch|off)-\d\.json(\.gz)?$', f).groups()[:2]
    try:
        results = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['results']
    except ValueError:  # a run still writing
        continue
    for size in results['sizes']:
        text, what = auto_over_native(size)
        cells[(case, mode)][size['bytes']].append(text)
        if mode == 'dispatch':
            ran[case].update(what)
        sizes.add(size['bytes'])
columns = sorted(sizes)
print("| case | mode | " + " | ".join(size_label(b) for b in columns) + " | auto ran |")
print("|---|---|" + "---|" * (len(columns) + 1))
for case, mode in sorted(cells):
    what = dict(ran[case]) if mode == 'dispatch' else ''
    print(f"| {case} | {mode} | " + " | ".join("; ".join(cells[(case, mode)].get(b, [])) or "–" for b in columns)
          + f" | {what} |")
