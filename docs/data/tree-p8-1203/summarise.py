#!/usr/bin/env python3
"""ē / native's (and r / native's) per size, pattern, delay and algorithm, from the bench logs given."""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_log import sweep_rows

for log in sys.argv[1:]:
    print(f"# {log}")
    for size, pattern, delay, name, cells in sweep_rows(log):
        if name == 'what ran':
            print(f"{'':8} {'':10} {'':6} {'what ran':19} {cells}")
        elif name != 'native':
            print(f"{size:8} {pattern:10} {delay:6} {name:19} e/native {cells['e']}  r/native {cells['r']}")
