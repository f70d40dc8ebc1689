#!/usr/bin/env python3
"""scatter3.sh's logs: per size and pattern (10 tau), each algorithm's x/native (e/native) in
the OLD, V16 and V48 builds. Usage: scatter3table.py [ROUND...]"""
import glob, re, sys
sys.path.insert(0, '.')
from table import parse  # noqa: E402  (table.py parses a bench log)

rounds = sys.argv[1:] or sorted({re.search(r'-r(\d+)\.log$', f).group(1) for f in glob.glob('scatter-*-r*.log')})
for rnd in rounds:
    for old in sorted(glob.glob(f'scatter-*-old-r{rnd}.log')):
        runs = [parse(old.replace('-old-', f'-{v}-'))[0] for v in ('old', 'v16', 'v48')]
        print(f'\n### {old.replace("-old", "")}: x/native (e/native), 4 chunks / 16 KiB / 48 KiB\n')
        print('| size | pattern | algorithm | old | 16 KiB | 48 KiB |\n|---|---|---|---|---|---|')
        for key in sorted(runs[0]):
            if key[3] == 'native': continue
            cells = [f'{r[key][1]:.2f} ({r[key][0]:.2f})' if key in r else '–' for r in runs]
            print(f'| {key[0]} | {key[1]} | {key[3]} | ' + ' | '.join(cells) + ' |')
