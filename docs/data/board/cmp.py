"""Per point of papshim-bench sweep JSON files (gzipped or not): auto's and the dynamic
leader's ē against native's, and auto's median over the leader's. Usage: cmp.py A.json.gz [B ...]"""
import gzip, json, sys


def load(path):
    """{(KiB, pattern, max delay): {algorithm name: its JSON entry}}"""
    with (gzip.open(path) if path.endswith('.gz') else open(path)) as f:
        doc = json.load(f)
    return {(size['bytes'] // 1024, point['pattern'], point['max_delay']): {a['name']: a for a in point['algorithms']}
            for size in doc['results']['sizes'] for point in size['points']}


def row(algorithms):
    native = algorithms['native']['median_elapsed_s']
    leader, auto = algorithms['dynamic_leader'], algorithms['auto']
    return (f"{auto['elapsed_ratio']:.2f} ({auto['median_elapsed_s'] / native:.2f}) | "
            f"{leader['elapsed_ratio']:.2f} ({leader['median_elapsed_s'] / native:.2f}) | "
            f"{auto['median_elapsed_s'] / leader['median_elapsed_s']:.2f}")


if __name__ == '__main__':
    data = [load(path) for path in sys.argv[1:]]
    print("KiB pattern D | per file: auto/native mean (median) | DL/native mean (median) | auto/DL median")
    for key in data[0]:
        print(key, ' || '.join(row(d[key]) for d in data))
