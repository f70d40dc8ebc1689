#!/usr/bin/env python3
"""run.sh's JSON: per run kind (long, short), collective, vector and pattern, auto's e/native and
x/native (excess over the unavoidable wait, over native's), with the named plan beside and what
auto ran; the short rounds as ranges. Usage: summary.py"""
import glob, json, re
from collections import defaultdict

cells = defaultdict(list)  # (kind, collective, p, bytes, pattern, algorithm) -> [(e, x, ran)]
for path in sorted(glob.glob('*-r*.json')):
    kind, collective, ranks = re.match(r'(long|short)-(reduce|allreduce)(?:-np(\d+))?-r\d+\.json', path).groups()
    ranks = int(ranks or 8)
    for size in json.load(open(path))['results']['sizes']:
        for point in size['points']:
            for a in point['algorithms']:
                ran = ' '.join(f'{k} {v}' for k, v in sorted(a.get('ran', {}).items()))
                cells[(kind, collective, ranks, size['bytes'], point['pattern'], a['name'])].append(
                    (a['elapsed_ratio'], a['excess_ratio'], ran))

def span(values, digits=2):
    lo, hi = min(values), max(values)
    return f'{lo:.{digits}f}' if f'{lo:.{digits}f}' == f'{hi:.{digits}f}' else f'{lo:.{digits}f}–{hi:.{digits}f}'

print('| run | collective | p | vector | pattern | auto e/native | auto x/native | named plan e/native (x/native) | what auto ran |')
print('|---|---|---|---|---|---|---|---|---|')
for (kind, collective, ranks, size, pattern, name), runs in sorted(cells.items()):
    if name != 'auto':
        continue
    plan = 'predicted_chain' if collective == 'reduce' else 'predicted_scatter'
    named = cells[(kind, collective, ranks, size, pattern, plan)]
    vector = f'{size >> 20} MiB' if size >= 1 << 20 else f'{size >> 10} KiB'
    print(f'| {kind} ({len(runs)} run{"s" if len(runs) > 1 else ""}) | {collective} | {ranks} | {vector} | {pattern} | '
          f'{span([e for e, _, _ in runs])} | {span([x for _, x, _ in runs])} | '
          f'{span([e for e, _, _ in named])} ({span([x for _, x, _ in named])}) | {"; ".join(dict.fromkeys(r for _, _, r in runs))} |')
