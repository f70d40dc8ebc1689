import csv, sys, statistics, collections
# Per call (comm, seq): mean over ranks of exit - arrival, for Allreduces up to 1 KiB with a predefined op on
# the 4-rank communicators that are duplicates of the world (the ones auto's window can take).
for path in sys.argv[1:]:
    calls = collections.defaultdict(list)
    algos = collections.Counter()
    for row in csv.DictReader(open(path + '/calls.csv')):
        if row['collective'] != 'allreduce' or row['comm_size'] != '4' or row['op'] == 'user': continue
        if int(row['bytes']) > 1024 or int(row['bytes']) == 0: continue
        calls[(row['comm'], int(row['seq']))].append(float(row['exit_s']) - float(row['arrival_s']))
        algos[row['algorithm']] += 1
    e = [statistics.mean(v) for v in calls.values() if len(v) == 4]
    print(f"{path}: {len(e)} calls, mean e {statistics.mean(e)*1e6:.1f} us, median {statistics.median(e)*1e6:.1f} us, algorithms {dict(algos)}")
