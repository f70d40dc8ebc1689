# The sleep probe's logs (sleep-probe.patch: each rank writes, per call, its entry into the
# bench's first barrier, both barrier exits, its arrival and its delay): for every call with a
# rank more than 17 ms (2 tau) off the staircase, where each rank's time went.
# Usage: python3 sleep_probe.py DIR...   (DIR holds 0.txt .. 7.txt)
import sys

for directory in sys.argv[1:]:
    rows = {r: [list(map(float, line.split())) for line in open(f"{directory}/{r}.txt")] for r in range(8)}
    for j in range(len(rows[0])):
        arrival = [rows[r][j][3] for r in range(8)]
        first = min(arrival)
        off = [r for r in range(8) if abs(arrival[r] - first - rows[r][j][4]) > 0.017]
        if not off:
            continue
        t0 = min(rows[r][j][0] for r in range(8))
        print(f"{directory} call {j}: off the pattern {off}")
        for r in range(8):
            t = rows[r][j]
            print(f"  rank {r}: barriers left at {1e3 * (t[1] - t0):6.1f} and {1e3 * (t[2] - t0):6.1f} ms, "
                  f"arrived {1e3 * (t[3] - t0):6.1f} ms, overslept {1e3 * (t[3] - t[2] - t[4]):6.1f} ms")
