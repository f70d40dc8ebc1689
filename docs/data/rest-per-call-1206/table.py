#!/usr/bin/env python3
"""ab.sh's JSON files ({allreduce,reduce}-npN-{A,B}-rR.json[.gz]): per collective, p, size and
pattern, `auto`'s ē over native's and its excess over native's (the calls that ran a plan in
brackets, of 20) for build A (before) and B (the rest per call), one cell per round, beside
the planned algorithm named (the predicted scatter or chain) in the same jobs."""
import glob, gzip, json, re
from collections import defaultdict


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


cells = defaultdict(list)
for f in sorted(glob.glob('*-np*-[AB]-r*.json*')):
    c, np, build, rnd = re.match(r'(\w+)-np(\d+)-([AB])-r(\d+)\.json', f).groups()
    for size in load(f)['results']['sizes']:
        for point in size['points']:
            algs = {a['name']: a for a in point['algorithms']}
            nat = algs['native']
            named = algs.get('predicted_scatter') or algs['predicted_chain']
            key = (c, int(np), size['bytes'], point['pattern'])
            for label, a in ((build, algs['auto']), (build + ' named', named)):
                cells[key + (label,)].append(
                    f"{a['mean_elapsed_s'] / nat['mean_elapsed_s']:.2f} ({a['mean_excess_s'] / nat['mean_excess_s']:.2f}) "
                    f"[{a['plans']['planned']}]")
order = {'one-late': 0, 'staircase': 1, 'uniform': 2}
cols = ['A', 'B', 'A named', 'B named']
print('ē/native (excess/native) [calls that ran a plan], one cell per round\n')
print('| collective | p | size | pattern | `auto` before | `auto`, rest per call | named, before\'s job | named, new job |')
print('|---' * 8 + '|')
for key in sorted({k[:4] for k in cells}, key=lambda k: (k[0], -k[1], k[2], order[k[3]])):
    size = f'{key[2] >> 20} MiB' if key[2] >= 1 << 20 else f'{key[2] >> 10} KiB'
    print(f'| {key[0]} | {key[1]} | {size} | {key[3]} | ' + ' | '.join('; '.join(cells[key + (c,)]) for c in cols) + ' |')
