#!/usr/bin/env python3
"""Prints every gap of more than 0.5 s in a loop that sleeps 50 ms, for ARGV[1] seconds.

Run beside a benchmark: a gap here means the whole machine stopped running this process,
not only the MPI job (docs/benchmarks.md, "The helper thread's polling froze the machine").
The steal column is /proc/stat's steal time over the gap, in jiffies.
"""
import sys
import time


def steal():
    with open("/proc/stat") as stat:
        return int(stat.readline().split()[8])


start = last = time.monotonic()
stolen = steal()
while time.monotonic() - start < float(sys.argv[1]):
    time.sleep(0.05)
    now = time.monotonic()
    if now - last > 0.5:
        print(f"gap {now - last:.2f} s at t={now - start:.1f} s; steal {steal() - stolen} jiffies", flush=True)
    stolen = steal()
    last = now
