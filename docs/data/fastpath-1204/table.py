#!/usr/bin/env python3
"""run.sh's runs (base-*, new-*) as one table: per MPI, build and benchmark,
the steady-state median ratio to native and the median extra ns per call of each variant, as
the median over the runs (their range in brackets), and the fresh-process ratios of the 8-byte
Allreduce. Writes table.md."""
import glob, gzip, json, re, statistics, collections

rows = collections.defaultdict(list)   # (mpi, build, bench, variant) -> [(ratio, extra_ns)]
fresh = collections.defaultdict(list)  # (mpi, build, variant) -> [ratio]
for path in sorted(glob.glob('*-np2-*.json.gz')):
    match = re.fullmatch(r'(base|new)-(openmpi|mpich)-np2-\d+\.json\.gz', path)
    if not match:
        continue  # bal-*: the sweep's runs (bal-table.md)
    build, mpi = match.groups()
    with gzip.open(path) as f:
        d = json.load(f)['results']
    for b in d['benchmarks']:
        size = b['bytes_per_rank']
        name = f"{b['collective']} {size} B" if size < 1024 else f"{b['collective']} {size // 1024} KiB"
        for v in b['variants']:
            rows[(mpi, build, name, v['name'])].append((v['median_ratio_to_native'], v['median_extra_seconds_per_call'] * 1e9))
    for v in d['fresh']['variants']:
        fresh[(mpi, build, v['name'])].append(v['ratio_to_native'])

def cell(values, fmt):
    return f"{fmt.format(statistics.median(values))} [{fmt.format(min(values))}–{fmt.format(max(values))}]"

out = ['| MPI | build | benchmark | variant | runs | ratio to native (steady) | extra ns/call | fresh ratio (8 B Allreduce) |',
       '|---|---|---|---|---|---|---|---|']
for (mpi, build, name, variant), vals in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][3], kv[0][1])):
    if variant == 'native':
        continue
    fr = cell(fresh[(mpi, build, variant)], '{:.3f}') if name.startswith('allreduce') else ''
    out.append(f"| {mpi} | {build} | {name} | {variant} | {len(vals)} | {cell([r for r, _ in vals], '{:.3f}')} | "
               f"{cell([e for _, e in vals], '{:.1f}')} | {fr} |")
open('table.md', 'w').write('\n'.join(out) + '\n')
print('\n'.join(out))
