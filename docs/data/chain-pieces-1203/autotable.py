#!/usr/bin/env python3
"""abauto.sh's logs: auto's e/native old -> new per case (p, root), size, pattern and delay,
with the named algorithms of the new build beside. Usage: autotable.py [ROUND...]"""
import glob, re, sys
from table import parse

rounds = sys.argv[1:] or sorted({re.search(r'-r(\d+)\.log$', f).group(1) for f in glob.glob('auto-*-r*.log')})
for rnd in rounds:
    print(f'\n### round {rnd}: auto e/native, old -> **new** (what new auto ran); named in the new build: '
          'Clairvoyant / pipelined tree / predicted chain\n')
    print('| p, root | size | pattern | D | auto old → new | ran (new) | clairvoyant | tree | chain |')
    print('|---|---|---|---|---|---|---|---|---|')
    for old in sorted(glob.glob(f'auto-*-old-r{rnd}.log')):
        case = re.match(r'auto-np(\d+)-root(\w+)-old', old)
        a, _ = parse(old)
        b, ran = parse(old.replace('-old-', '-new-'))
        for key in sorted({k[:3] for k in a}, key=lambda k: (float(k[0].split()[0]) * (1024 if 'MiB' in k[0] else 1), k[1], k[2])):
            g = lambda r, alg: f'{r[key + (alg,)][0]:.2f}' if key + (alg,) in r else '–'
            what = ran.get(key + ('auto',), '').replace('auto: ', '')
            print(f'| {case.group(1)}, {case.group(2)} | {key[0]} | {key[1]} | {key[2]} | {g(a, "auto")} → **{g(b, "auto")}** | '
                  f'{what} | {g(b, "clairvoyant")} | {g(b, "pipelined_binomial")} | {g(b, "predicted_chain")} |')
