#!/usr/bin/env python3
"""Per run, size and pattern: each algorithm's excess over the unavoidable wait as a fraction of
native's in the same run, median call (mean in brackets), and auto's planned / assessed / good /
last_right counts. Usage: cmp.py RUN.json[.gz] ..."""
import gzip, json, statistics, sys

def load(path):
    return json.load((gzip.open if path.endswith('.gz') else open)(path))

for path in sys.argv[1:]:
    d = load(path)
    for size in d['results']['sizes']:
        for point in size['points']:
            algs = {a['name']: a for a in point['algorithms']}
            nat = algs['native']
            ex = lambda a: [e - u for e, u in zip(a['elapsed_s'], a['unavoidable_wait_s'])]
            nmed, nmean = statistics.median(ex(nat)), statistics.mean(ex(nat))
            cells = []
            for name, a in algs.items():
                if name == 'native':
                    continue
                e = ex(a)
                cells.append(f"{name} {statistics.median(e)/nmed:.2f} ({statistics.mean(e)/nmean:.2f})")
            pl = algs['auto']['plans']
            print(f"{path.split('/')[-1]:<14} {size['bytes']>>10:>5}K {point['pattern']:<10} native {nmed*1e3:6.2f} ms | "
                  + " | ".join(cells)
                  + f" | auto planned {pl['planned']}/{len(nat['elapsed_s'])} assessed {pl['assessed']} good {pl['good']} last_right {pl.get('last_right')}")
