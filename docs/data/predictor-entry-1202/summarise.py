#!/usr/bin/env python3
"""One line per (file, size, pattern, algorithm): e/native and the plan counts, old beside new, from the bench logs."""
import glob, re, sys, collections
rows = collections.OrderedDict()
for log in sorted(glob.glob('*-r*.log')):
    m = re.match(r'(.*)-(old|new)-r(\d+)\.log', log)
    if not m: continue
    name, build, rnd = m.groups()
    size = pattern = None
    for line in open(log):
        s = re.match(r'(\S+ [KM]iB) (?:vector|per rank|block)', line)
        if s: size = s.group(1); continue
        if line.startswith(('one-late', 'staircase')):
            pattern = line.split()[0]
        a = re.match(r'\s*(?:(?:one-late|staircase)\s+10tau\s+)?(native|binomial|clairvoyant|auto|predicted_scatter|bdr)\s+[\d.]+ m?s\s+([\d.]+)', line)
        if a and pattern:
            rows.setdefault((name, size, pattern, a.group(1)), collections.defaultdict(list))[build].append(a.group(2))
        p = re.match(r'\s+calls that ran a plan: (.*)', line)
        if p and pattern:
            rows.setdefault((name, size, pattern, 'plans'), collections.defaultdict(list))[build].append(p.group(1).replace(' ', ''))
for (name, size, pattern, alg), v in rows.items():
    print(f"{name:14} {size or '':8} {pattern:10} {alg:18} old {' '.join(v['old']):30} new {' '.join(v['new'])}")
