"""The ranges in docs/benchmarks.md, "auto's exchanges on one node go through shared memory"."""
from cmp import load


def span(values):
    return f"{min(values):.2f}-{max(values):.2f}"


for label, files in [("p8", ["shm8-%s-b.json.gz", "shm8-%s-c.json.gz", "shm8-%s-d.json.gz"]), ("p4", ["shm4-%s-e.json.gz"])]:
    for build in ["before", "after"]:
        over_leader, auto, leader, balanced = [], [], [], []
        for name in files:
            for key, a in load(name % build).items():
                native = a['native']['median_elapsed_s']
                if key[2] == '0':
                    balanced.append(a['auto']['median_elapsed_s'] / native)
                    continue
                over_leader.append(a['auto']['median_elapsed_s'] / a['dynamic_leader']['median_elapsed_s'])
                auto.append(a['auto']['elapsed_ratio'])
                leader.append(a['dynamic_leader']['elapsed_ratio'])
        middle = sorted(over_leader)[len(over_leader) // 2]
        print(label, build, "auto/DL median-ratio", span(over_leader), f"median of them {middle:.2f}",
              "| auto ē/native", span(auto), "| DL ē/native", span(leader), "| D=0 auto median/native", span(balanced))
