#!/usr/bin/env python3
"""loops.sh's JSON files ({long,short}-npN-rR.json[.gz]): per run, p, size and pattern, ē over
native's of the pipelined tree, the predicted chain named and `auto` (what `auto` ran, of the
run's calls), the median call's ratio in brackets."""
import glob, gzip, json, re


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


print('| run | p | size | pattern | tree | chain | `auto` | what `auto` ran |')
print('|---' * 8 + '|')
for f in sorted(glob.glob('*-np*-r*.json*')):
    kind, np, rnd = re.match(r'(\w+)-np(\d+)-r(\d+)\.json', f).groups()
    for size in load(f)['results']['sizes']:
        for point in size['points']:
            algs = {a['name']: a for a in point['algorithms']}
            nat = algs['native']
            cell = lambda a: (f"{a['mean_elapsed_s'] / nat['mean_elapsed_s']:.2f} "
                              f"({a['median_elapsed_s'] / nat['median_elapsed_s']:.2f})")
            ran = ', '.join(f'{k} {v}' for k, v in sorted(algs['auto'].get('ran', {}).items()))
            print(f"| {kind} {rnd} | {np} | {size['bytes'] >> 10} KiB | {point['pattern']} | "
                  f"{cell(algs['pipelined_binomial'])} | {cell(algs['predicted_chain'])} | {cell(algs['auto'])} | {ran} |")
