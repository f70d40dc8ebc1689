#!/usr/bin/env python3
"""ē / native's (excess / native's in brackets) per size, pattern and delay, from papshim-bench sweep logs."""
import re, sys
for log in sys.argv[1:]:
    size = pattern = delay = None
    rows = {}
    for line in open(log):
        s = re.match(r'(\S+ [KM]iB) vector', line)
        if s: size = s.group(1); continue
        m = re.match(r'(one-late|staircase|uniform)?\s+(0|\d+tau|\d+m?s)?\s*([a-z_]+)\s+([\d.]+ [mu]?s)\s+([\d.]+)\s+([\d.]+ [mu]?s)\s+([\d.]+)\s+(\S+ [mu]?s)\s+(-?[\d.]+ [mu]?s)\s+(-?[\d.]+)', line)
        if m:
            if m.group(1): pattern = m.group(1)
            if m.group(2): delay = m.group(2)
            key = (size, pattern if delay != '0' else 'balanced', delay)
            rows.setdefault(key, []).append(f"{m.group(3)} {m.group(5)} ({m.group(10)})")
        r = re.match(r'\s+what ran: (.*)', line)
        if r: rows[key].append(f"[{r.group(1)}]")
    print(f"# {log}")
    for (size, pattern, delay), cells in rows.items():
        print(f"{size:8} {pattern:9} {delay:6} " + "  ".join(c for c in cells if not c.startswith('native')))
