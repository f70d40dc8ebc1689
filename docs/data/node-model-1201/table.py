# python3 table.py < model.txt: the docs' markdown table of model.py's output.
import re, sys
case = None
print("| case | size | pattern, D | native ē (ms) | best message algorithm: model / measured ē (ms) | arrival_chain: model / measured ē (ms) | hierarchical | node algorithm ÷ best message algorithm: model / measured |")
print("|---|---|---|---|---|---|---|---|")
for line in sys.stdin:
    m = re.match(r"node-(\S+)\.json(?:\.gz)?: (\w+), p = (\d+), (.*)$", line)
    if m:
        case = f"{m.group(2)}, p = {m.group(3)}, {m.group(4)}"; continue
    m = re.match(r"(\d+) KiB (\S+) D=(\S+) \(([^)]*)\): native ([\d.]+) \| (.*) \|\| over best message alg: (.*)$", line)
    if not m: continue
    size, pattern, D, Dms, native, cells, ratios = m.groups()
    alg = {a: (float(x), float(y)) for a, x, y in re.findall(r"(\w+) ([\d.e+-]+) / ([\d.e+-]+)", cells)}
    msg = {a: v for a, v in alg.items() if a not in ('arrival_chain', 'hierarchical')}
    bm = min(msg, key=lambda a: msg[a][0]); bx = min(msg, key=lambda a: msg[a][1])
    best = f"{bm} {msg[bm][0]:.3g} / {bx} {msg[bx][1]:.3g}" if bm != bx else f"{bm} {msg[bm][0]:.3g} / {msg[bm][1]:.3g}"
    cell = lambda a: f"{alg[a][0]:.3g} / {alg[a][1]:.3g}" if a in alg else "–"
    rat = re.sub(r"arrival_chain ", "chain ", ratios).replace("hierarchical ", "hier. ")
    dtext = "0" if D == "0" else f"{D} ({Dms})"
    print(f"| {case} | {'1 MiB' if size == '1024' else ('4 MiB' if size == '4096' else size + ' KiB')} | {pattern}, {dtext} | {native} | {best} | {cell('arrival_chain')} | {cell('hierarchical')} | {rat} |")
