#!/usr/bin/env python3
"""ē / native's (excess / native's in brackets) per size, pattern and delay, from papshim-bench sweep logs."""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_log import sweep_rows

for log in sys.argv[1:]:
    rows = {}
    for size, pattern, delay, name, cells in sweep_rows(log):
        key = (size, pattern if delay != '0' else 'balanced', delay)
        if name == 'what ran':
            rows[key].append(f"[{cells}]")
        else:
            rows.setdefault(key, []).append(f"{name} {cells['e']} ({cells['excess']})")
    print(f"# {log}")
    for (size, pattern, delay), cells in rows.items():
        print(f"{size:8} {pattern:9} {delay:6} " + "  ".join(c for c in cells if not c.startswith('native')))
