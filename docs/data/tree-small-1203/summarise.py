#!/usr/bin/env python3
"""ē / native's (and r / native's) per size, pattern, delay and algorithm, from the bench logs given."""
import re, sys
for log in sys.argv[1:]:
    size = pattern = delay = None
    print(f"# {log}")
    for line in open(log):
        s = re.match(r'(\S+ [KM]iB) vector', line)
        if s: size = s.group(1); continue
        m = re.match(r'(one-late|staircase|uniform)?\s+(0|\d+tau)?\s*(native|binomial|pipelined_binomial|auto|clairvoyant)\s+([\d.]+ [mu]?s)\s+([\d.]+)\s+([\d.]+ [mu]?s)\s+([\d.]+)', line)
        if m:
            if m.group(1): pattern = m.group(1)
            if m.group(2): delay = m.group(2)
            if m.group(3) != 'native':
                print(f"{size:8} {pattern:10} {delay:6} {m.group(3):19} e/native {m.group(5)}  r/native {m.group(7)}")
        r = re.match(r'\s+what ran: (.*)', line)
        if r: print(f"{'':8} {'':10} {'':6} {'what ran':19} {r.group(1)}")
