#!/usr/bin/env python3
"""run.sh's JSON files (npN-rR.json[.gz]): per p, size, pattern and D, the mean time in the call
(ē) over native's of the pipelined tree (what `auto` ran here before), the predicted chain
named and `auto` (the calls on which it ran the chain, of 20, in brackets), one cell per
round; w/τ is the measured arrival spread over the vector time, from native's calls. Then
`auto` against the tree it ran here before: the geometric mean over rounds of the ratio of
their mean times in the call, and the mean difference per call."""
import glob, gzip, json, math, re
from collections import defaultdict


def load(f):
    return json.load(gzip.open(f) if f.endswith('.gz') else open(f))


cells = defaultdict(list)
spread = defaultdict(list)
ratios = defaultdict(list)
for f in sorted(glob.glob('np*-r*.json*')):
    np = int(re.match(r'np(\d+)-r\d+\.json', f).group(1))
    for size in load(f)['results']['sizes']:
        for point in size['points']:
            algs = {a['name']: a for a in point['algorithms']}
            nat = algs['native']
            key = (np, size['bytes'], point['pattern'], point['max_delay'])
            spread[key].append(f"{nat['imbalance_factor']:.1f}")
            for name in ('pipelined_binomial', 'predicted_chain', 'auto'):
                a = algs[name]
                cell = f"{a['mean_elapsed_s'] / nat['mean_elapsed_s']:.2f}"
                if name == 'auto':
                    cell += f" [{a.get('ran', {}).get('predicted_chain', 0)}]"
                cells[key + (name,)].append(cell)
            what = 'balanced' if point['max_delay'] == '0' else f"{point['pattern']} {point['max_delay']}"
            auto, tree = algs['auto']['mean_elapsed_s'], algs['pipelined_binomial']['mean_elapsed_s']
            ratios[(np, size['bytes'], what)].append((auto / tree, auto - tree))
order = {'one-late': 0, 'staircase': 1, 'uniform': 2}
print('ē / native\'s, one cell per round; `auto`\'s calls that ran the chain of 20 in brackets\n')
print('| p | size | pattern | D | w/τ | pipelined tree | predicted chain | `auto` |')
print('|---' * 8 + '|')
for key in sorted({k[:4] for k in cells}, key=lambda k: (-k[0], k[1], order[k[2]], float(k[3].rstrip('tau') or 0))):
    print(f'| {key[0]} | {key[1] >> 10} KiB | {key[2]} | {key[3]} | {", ".join(spread[key])} | ' +
          ' | '.join(', '.join(cells[key + (n,)]) for n in ('pipelined_binomial', 'predicted_chain', 'auto')) + ' |')

print('\n`auto` / the pipelined tree: geometric mean of the rounds\' ratios (mean difference per call)\n')
print('| p | size | arrivals | auto / tree | difference |')
print('|---' * 5 + '|')
for key in sorted(ratios, key=lambda k: (-k[0], k[1], k[2])):
    v = ratios[key]
    geo = math.exp(sum(math.log(r) for r, _ in v) / len(v))
    print(f'| {key[0]} | {key[1] >> 10} KiB | {key[2]} | {geo:.2f} | {sum(d for _, d in v) / len(v) * 1e6:+.0f} µs |')
