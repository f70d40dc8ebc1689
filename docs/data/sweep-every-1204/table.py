#!/usr/bin/env python3
"""run.sh's sweeps as tables (table.md): per run (collective, network, MPI, p), one row per
size, pattern and delay D: native's mean e and LB, then for every algorithm and `auto` its
mean e over native's, its excess over native's in parentheses, and in brackets the median
over the iterations of the paired ratio e_alg / e_native (the same delays for both, so one
stalled call cannot move it). A summary (summary.md) gives per row the best algorithm by
mean e, `auto` and what `auto` ran."""
import glob, gzip, json, statistics

def load(path):
    with (gzip.open if path.endswith('.gz') else open)(path) as f:
        return json.load(f)

def size_name(b):
    return f"{b} B" if b < 1024 else (f"{b >> 10} KiB" if b < 1 << 20 else f"{b >> 20} MiB")

def us(s):
    return f"{s * 1e6:.0f} µs" if s >= 1e-4 else f"{s * 1e6:.1f} µs"

full, summary = [], []
for path in sorted(glob.glob('*-np*.json*')):
    tag = path.split('.json')[0]
    try:
        r = load(path)
    except ValueError:
        continue  # a run still writing
    r = r.get('results', r)
    names = [a['name'] for a in r['sizes'][0]['points'][0]['algorithms'] if a['name'] != 'native']
    full += [f"\n### {tag}\n", '| size | pattern | D | native ē (LB) | ' + ' | '.join(names) + ' |',
             '|---|---|---|---|' + '---|' * len(names)]
    summary += [f"\n### {tag}\n", '| size | pattern | D | native ē (LB) | best: ē/native (excess/native) [paired] | `auto` | `auto` ran |',
                '|---|---|---|---|---|---|---|']
    for s in r['sizes']:
        for p in s['points']:
            algs = {a['name']: a for a in p['algorithms']}
            nat = algs['native']
            def cell(a):
                paired = [e / n for e, n in zip(a['elapsed_s'], nat['elapsed_s']) if n > 0]
                med = statistics.median(paired) if paired else float('nan')
                return f"{a['elapsed_ratio']:.2f} ({a['excess_ratio']:.2f}) [{med:.2f}]"
            d = p['max_delay'] if p['max_delay'] != '0' else '0'
            head = f"| {size_name(s['bytes'])} | {p['pattern']} | {d} | {us(nat['mean_elapsed_s'])} ({us(nat['mean_unavoidable_wait_s'])}) |"
            full.append(head + ' ' + ' | '.join(cell(algs[n]) for n in names) + ' |')
            best = min((n for n in names if n != 'auto'), key=lambda n: algs[n]['mean_elapsed_s'])
            ran = ', '.join(f"{k} {v}" for k, v in sorted(algs['auto'].get('ran', {}).items()))
            summary.append(head + f" {best} {cell(algs[best])} | {cell(algs['auto'])} | {ran} |")
open('table.md', 'w').write('# Every algorithm, ē/native (excess/native) [paired median]\n' + '\n'.join(full) + '\n')
open('summary.md', 'w').write('# Best algorithm and `auto` per point\n' + '\n'.join(summary) + '\n')
print('\n'.join(summary))
