#!/usr/bin/env python3
"""run.sh's JSON: e/native per root, vector, pattern and delay for the whole-vector tree, the
pipelined tree and auto (with what auto ran). Usage: table.py [ROUND]"""
import glob, json, sys

rnd = sys.argv[1] if len(sys.argv) > 1 else '1'
print('| root | vector | pattern | D | whole tree | pipelined tree | `auto` | `auto` ran |')
print('|---|---|---|---|---|---|---|---|')
for path in sorted(glob.glob(f'np8-root*-r{rnd}.json')):
    results = json.load(open(path))['results']
    for size in results['sizes']:
        vector = f'{size["bytes"] >> 20} MiB' if size['bytes'] >= 1 << 20 else f'{size["bytes"] >> 10} KiB'
        for point in size['points']:
            e = {a['name']: a['elapsed_ratio'] for a in point['algorithms']}
            ran = next(a.get('ran', {}) for a in point['algorithms'] if a['name'] == 'auto')
            print(f'| {results["root"]} | {vector} | {point["pattern"]} | {point["max_delay"]} | {e["binomial"]:.2f} | '
                  f'{e["pipelined_binomial"]:.2f} | {e["auto"]:.2f} | {", ".join(f"{k} {v}" for k, v in ran.items())} |')
