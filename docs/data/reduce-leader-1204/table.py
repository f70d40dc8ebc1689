#!/usr/bin/env python3
"""From papshim-bench sweep logs: per size, pattern and delay, each algorithm's e/native and
r/native (r: first arrival to last exit, which for a Reduce is the root's end) and what auto
ran; with --ranges, per log and algorithm the range of each over the balanced (delay 0) and
the imbalanced points."""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_log import sweep_rows

ranges = '--ranges' in sys.argv
for log in [a for a in sys.argv[1:] if a != '--ranges']:
    cells, spans = {}, {}
    for size, pattern, delay, name, row in sweep_rows(log):
        key = (size, pattern, delay)
        if name == 'what ran':
            cells[key].append(f"[{row}]")
            continue
        if name == 'native':
            continue
        cells.setdefault(key, []).append(f"{name} {row['e']} {row['r']}")
        span = spans.setdefault((name, 'balanced' if delay == '0' else 'imbalanced'), [[], []])
        span[0].append(float(row['e']))
        span[1].append(float(row['r']))
    if ranges:
        print(f"# {log}   e/native range, r/native range")
        for (name, kind), (e, r) in sorted(spans.items(), key=lambda x: (x[0][1], x[0][0])):
            print(f"{kind:10} {name:16} e {min(e):.2f}-{max(e):.2f}  r {min(r):.2f}-{max(r):.2f}")
        continue
    print(f"# {log}   cells: e/native r/native")
    for (size, pattern, delay), row in cells.items():
        print(f"{size:8} {pattern:9} {delay:6} " + "  ".join(row))
