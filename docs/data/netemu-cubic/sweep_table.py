# Markdown table of a papshim-bench sweep JSON: per point, each algorithm's e/native
# (excess/native) [planned calls], and BDR's excess over the smaller of native's and the ring's.
# Usage: python3 sweep_table.py FILE.json
import json, sys

d = json.load(open(sys.argv[1]))
r = d['results']
for size in r['sizes']:
    points = size['points']
    names = [a['name'] for a in points[0]['algorithms']]
    others = [n for n in names if n != 'native']
    print(f"**{r['collective']}, {size['bytes'] >> 10} KiB per rank, p = {d['ranks']}, tau = {size['tau_s'] * 1e3:.2f} ms**\n")
    print('| pattern | D | ω/τ | native ē | native excess | ' + ' | '.join(others) + ' | bdr/min(native, ring) |')
    print('|' + '---|' * (6 + len(others)))
    for p in points:
        a = {x['name']: x for x in p['algorithms']}
        nat = a['native']
        cells = []
        for n in others:
            x = a[n]
            cell = f"{x['mean_elapsed_s'] / nat['mean_elapsed_s']:.2f} ({x['mean_excess_s'] / nat['mean_excess_s']:.2f})"
            plans = x.get('plans', {})
            if plans.get('planned', 0) + plans.get('unplanned', 0) > 0:
                cell += f" [{plans['planned']}/{len(x['elapsed_s'])}]"
            cells.append(cell)
        best = min(nat['mean_excess_s'], a['ring']['mean_excess_s']) if 'ring' in a else nat['mean_excess_s']
        ratio = f"{a['bdr']['mean_excess_s'] / best:.2f}" if 'bdr' in a else '-'
        print(f"| {p['pattern']} | {p['max_delay']} | {p['median_imbalance_factor']:.1f} | {nat['mean_elapsed_s'] * 1e3:.1f} ms | "
              f"{nat['mean_excess_s'] * 1e3:.2f} ms | " + ' | '.join(cells) + f" | {ratio} |")
    print()
