# python3 model.py node-*.json: papshim-sim's node model (arrival_chain, hierarchical) beside the
# measured sweep: per case, size, pattern and D, each algorithm's e (ms), model / measured (model with --contention, intra-node beta from
# the run's own streaming tau at that size on shared memory), and
# the node algorithms' e over the best message algorithm's, model / measured.
import gzip, json, subprocess, sys, statistics, os
SIM = os.environ.get('SIM', 'build/openmpi/bin/papshim-sim')
GAMMA = 4e-11  # PMPI_Reduce_local of ints/doubles on this VM, in cache (gamma.c)
SHM = {4: (0.70e-6, 5.1e-11), 8: (1.63e-6, 7.15e-11)}  # docs/simulator.md "Model against measurement"
def sim(collective, algs, p, bytes_, pattern, rpn, seed=1, stream_tau=None):
    a, b = SHM[8 if rpn else p]
    if stream_tau and not rpn: b = (stream_tau - a) / bytes_  # this run's own streaming tau at this size
    cmd = [SIM, '--ranks', str(p), '--bytes', str(bytes_), '--pattern', pattern, '--seed', str(seed),
           '--alpha', str(a), '--beta', str(b), '--gamma', str(GAMMA), f'--{collective}', ','.join(algs), '--json', '/tmp/m.json', '--contention']
    if collective == 'reduce': cmd += ['--root', '0']
    if rpn: cmd += ['--ranks-per-node', str(rpn), '--inter-alpha', '5e-5', '--inter-beta', '8e-9']
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return {r['algorithm']: r['mean_elapsed'] for r in json.load(open('/tmp/m.json'))['results']}
NODE = {'arrival_chain', 'hierarchical'}
for f in sys.argv[1:]:
    d = json.load(gzip.open(f) if f.endswith('.gz') else open(f)); p = d['ranks']; r = d['results']; coll = r['collective']
    rpn = 2 if 'rpn2' in f else 0
    print(f"\n{f}: {coll}, p = {p}, {'1 Gbit/s, 2 ranks per node' if rpn else 'shared memory'}")
    for s in r['sizes']:
        for pt in s['points']:
            A = {a['name']: a for a in pt['algorithms']}
            algs = [n for n in A if n != 'native']
            D = pt['max_delay_s']; T = s['tau_stream_s']
            if D == 0: m = sim(coll, algs, p, s['bytes'], 'balanced', rpn, 1, T)
            elif pt['pattern'] == 'one-late':
                m = sim(coll, algs, p, s['bytes'], 'list:' + ','.join(['0'] * (p - 1) + [repr(D)]), rpn, 1, T)
            else:
                runs = [sim(coll, algs, p, s['bytes'], f'uniform:{D!r}', rpn, seed, T) for seed in range(1, 21)]
                m = {a: statistics.mean(x[a] for x in runs) for a in algs}
            msg = [a for a in algs if a not in NODE]
            bm, bx = min(m[a] for a in msg), min(A[a]['mean_elapsed_s'] for a in msg)
            cells = ' | '.join(f"{a} {m[a]*1e3:.3g} / {A[a]['mean_elapsed_s']*1e3:.3g}" for a in algs)
            rat = '; '.join(f"{a} {m[a]/bm:.2f} / {A[a]['mean_elapsed_s']/bx:.2f}" for a in algs if a in NODE)
            print(f"{s['bytes']>>10} KiB {pt['pattern']} D={pt['max_delay']} ({D*1e3:.3g} ms): native {A['native']['mean_elapsed_s']*1e3:.3g} | {cells} || over best message alg: {rat}")
