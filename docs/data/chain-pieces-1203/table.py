#!/usr/bin/env python3
"""From ab.sh's logs: per case, size, pattern and delay, each algorithm's e/native and
x/native (excess over the unavoidable wait, over native's), OLD -> NEW.
Usage: table.py [--prefix P] [ROUND...]  (default: every round found; P: the logs' prefix, e.g. auto-)"""
import glob, re, sys
from collections import defaultdict

ROW = re.compile(r'(one-late|staircase|uniform)?\s+(0|\d+tau)?\s*([a-z_]+)\s+[\d.]+ [mu]?s\s+([\d.]+)\s+[\d.]+ [mu]?s\s+([\d.]+)'
                 r'\s+\S+ [mu]?s\s+(-?[\d.]+ [mu]?s)\s+(-?[\d.]+)')
RAN = re.compile(r'\s+what ran: (.*)')

def parse(log):
    out, ran = {}, {}
    size = pattern = delay = None
    for line in open(log):
        s = re.match(r'(\S+ [KM]iB) vector', line)
        if s: size = s.group(1); continue
        m = ROW.match(line)
        if m:
            if m.group(1): pattern = m.group(1)
            if m.group(2): delay = m.group(2)
            out[(size, pattern, delay, m.group(3))] = (float(m.group(4)), float(m.group(7)))
            last = (size, pattern, delay, m.group(3))
            continue
        r = RAN.match(line)
        if r: ran[last] = r.group(1)
    return out, ran

def main():
    args = sys.argv[1:]
    PREFIX = ''
    if args[:1] == ['--prefix']:
        PREFIX, args = args[1], args[2:]
    rounds = args or sorted({re.search(r'-r(\d+)\.log$', f).group(1) for f in glob.glob(PREFIX + '*-r*.log')})
    for rnd in rounds:
        for old in sorted(glob.glob(f"{PREFIX}*-old-r{rnd}.log")):
            new = old.replace('-old-', '-new-')
            a, _ = parse(old)
            b, ran = parse(new)
            print(f'\n### {old.replace("-old", "")}: e/native (x/native), old -> new\n')
            algs = sorted({k[3] for k in a} - {'native'})
            print('| size | pattern | D | ' + ' | '.join(algs) + ' |')
            print('|---|---|---|' + '---|' * len(algs))
            for key in sorted({k[:3] for k in a}, key=lambda k: (float(k[0].split()[0]) * (1024 if 'MiB' in k[0] else 1), k[1], k[2])):
                cells = []
                for alg in algs:
                    o, n = a.get(key + (alg,)), b.get(key + (alg,))
                    fmt = lambda v: f'{v[0]:.2f} ({v[1]:.2f})' if v else '–'
                    cells.append(f'{fmt(o)} → **{fmt(n)}**')
                print(f'| {key[0]} | {key[1]} | {key[2]} | ' + ' | '.join(cells) + ' |')
                w = ran.get(key + ('auto',))
                if w: print(f'|  |  | auto ran (new) | {w} |' + ' |' * (len(algs) - 1))


if __name__ == '__main__':
    main()
