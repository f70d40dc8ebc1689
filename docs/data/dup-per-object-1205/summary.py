import sys, collections, statistics
# Per calls-per-object and round: time per object of `before` and `after` over native's in the same round.
rows = collections.defaultdict(dict)
for path in sys.argv[1:]:
    for line in open(path):
        parts = line.split()
        if len(parts) != 4: continue
        rnd, calls, variant, us = parts
        rows[(int(calls), int(rnd))][variant] = float(us)
by_calls = collections.defaultdict(lambda: collections.defaultdict(list))
for (calls, rnd), v in sorted(rows.items()):
    if 'native' not in v: continue
    for variant in ('before', 'after'):
        if variant in v: by_calls[calls][variant].append(v[variant] / v['native'])
print("| calls per object | rounds | before: auto / native (median, range) | after: auto / native (median, range) |")
print("|---|---|---|---|")
for calls in sorted(by_calls):
    b, a = by_calls[calls]['before'], by_calls[calls]['after']
    print(f"| {calls} | {len(b)} | {statistics.median(b):.2f} ({min(b):.2f}–{max(b):.2f}) | {statistics.median(a):.2f} ({min(a):.2f}–{max(a):.2f}) |")
