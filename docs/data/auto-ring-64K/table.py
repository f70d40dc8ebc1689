# Summarises loop.txt / loop-ring.txt: per case, each algorithm's e over native's in the same
# round (min-max over rounds), and what auto ran. Usage: python3 table.py FILE...
import re, sys, collections
for path in sys.argv[1:]:
    rows = collections.defaultdict(lambda: collections.defaultdict(dict))
    ran = collections.defaultdict(set)
    for line in open(path):
        m = re.match(r'p=(\d+) bytes=(\d+) D=(\S+) +(allgatherv )?round=(\d) (\w+) e ([\d.]+) ms loop ([\d.]+) s(.*)', line)
        if not m: continue
        p, b, d, v, rnd, alg, e, loop, rest = m.groups()
        case = (int(p), int(b) >> 10, float(d), 'Allgatherv' if v else 'Allgather')
        rows[case][int(rnd)][alg] = (float(e), float(loop))
        if alg == 'auto': ran[case].add(rest.strip())
    print(f'{path}\n| p | KiB | D (ms) | collective | algorithm | e / native | loop / native | auto ran |\n|---|---|---|---|---|---|---|---|')
    for case in sorted(rows):
        algs = sorted({a for r in rows[case].values() for a in r if a != 'native'})
        for a in algs:
            es = [r[a][0] / r['native'][0] for r in rows[case].values() if a in r and 'native' in r]
            ls = [r[a][1] / r['native'][1] for r in rows[case].values() if a in r and 'native' in r]
            what = '; '.join(sorted(ran[case])) if a == 'auto' else ''
            print(f'| {case[0]} | {case[1]} | {case[2]*1e3:.1f} | {case[3]} | {a} | {min(es):.2f}–{max(es):.2f} | {min(ls):.2f}–{max(ls):.2f} | {what} |')
