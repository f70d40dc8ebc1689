#!/usr/bin/python3
"""Time an MPI application natively and under papshim, interleaved, in one session.

Each repetition runs every configuration once, in a rotating order, so slow phases of a
shared machine hit all of them alike. A configuration is a label, an input variant and
PAPSHIM_ variables; 'native' runs without the shim. The application's own timer is read
from its output (--timer: a regular expression whose first group, or the group named
'seconds', is seconds; a group named 'minutes' is added, for timers like QE's "1m 3.2s WALL"). Prints one
Markdown table: median and minimum seconds, and the median over repetitions of the ratio
to the native run of the same variant in the same repetition.

  examples/apps/app_timing.py --shim build/apps-openmpi/lib/libpapshim.so --np 2 --reps 5 \\
      --app "lmp -in examples/lammps/in.lj-melt -var cells 10 -var steps 500 -var balance {variant} -log none" \\
      --timer "Loop time of ([0-9.eE+-]+)" \\
      --config native:rcb --config sparbit:rcb:ALLGATHER=sparbit,ALLGATHERV=sparbit
  QE's timer: --timer "PWSCF *:.*CPU +(?:(?P<minutes>[0-9]+)m *)?(?P<seconds>[0-9.]+)s WALL"
"""
import argparse
import csv
import re
import shlex
import statistics
import subprocess
import sys

OPEN_MPI_FLAGS = "--allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none"


def parse_config(text):
    """label:variant[:NAME=VALUE,...] -> (label, variant, {PAPSHIM_NAME: VALUE}). A label starting
    with 'native' runs without the shim and is the reference of its variant."""
    label, _, rest = text.partition(":")
    variant, _, assignments = rest.partition(":")
    env = {}
    for item in filter(None, assignments.split(",")):
        name, _, value = item.partition("=")
        env[f"PAPSHIM_{name.upper()}"] = value
    if label.startswith("native"):
        env = {}
    elif "PAPSHIM_MODE" not in env:
        env["PAPSHIM_MODE"] = "dispatch"
    return label, variant, env


def run_once(options, variant, env):
    command = shlex.split(options.mpiexec)
    if env:
        command += ["-x", f"LD_PRELOAD={options.shim}"] + [arg for k, v in env.items() for arg in ("-x", f"{k}={v}")]
    command += ["-n", str(options.np)] + shlex.split(options.app.format(variant=variant))
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=options.cwd)
    match = re.search(options.timer, done.stdout)
    if done.returncode != 0 or not match:
        sys.exit(f"app_timing: run failed or printed no timer\n$ {shlex.join(command)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    groups = match.groupdict()
    seconds = groups["seconds"] if "seconds" in groups else match.group(1)
    return float(seconds) + 60 * float(groups.get("minutes") or 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", required=True, help="application command; {variant} is replaced")
    parser.add_argument("--timer", required=True, help="regex; group 1 = seconds, from stdout")
    parser.add_argument("--config", action="append", required=True, help="label:variant[:NAME=VALUE,...]")
    parser.add_argument("--shim", required=True)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--mpiexec", default=f"mpiexec.openmpi {OPEN_MPI_FLAGS}")
    parser.add_argument("--cwd", default=None, help="folder to run in (QE writes its scratch there)")
    parser.add_argument("--csv", default=None, help="also write every measurement here")
    options = parser.parse_args()
    configs = [parse_config(text) for text in options.config]
    times = {label: [] for label, _, _ in configs}
    rows = []
    for rep in range(options.reps):
        shift = rep % len(configs)
        for label, variant, env in configs[shift:] + configs[:shift]:
            seconds = run_once(options, variant, env)
            times[label].append((rep, seconds))
            rows.append({"rep": rep, "config": label, "variant": variant, "seconds": seconds})
            print(f"rep {rep} {label:24s} {seconds:8.3f} s", file=sys.stderr, flush=True)
    native = {variant: dict(times[label]) for label, variant, _ in configs if label.startswith("native")}
    print(f"| configuration | variant | median s | min s | ratio to native (median of {options.reps}) |")
    print("|---|---|---|---|---|")
    for label, variant, _ in configs:
        values = [s for _, s in times[label]]
        reference = native.get(variant)
        if label.startswith("native"):
            ratio = "1"
        elif reference:
            ratio = f"{statistics.median(s / reference[rep] for rep, s in times[label]):.3f}"
        else:
            ratio = "n/a"
        print(f"| {label} | {variant} | {statistics.median(values):.3f} | {min(values):.3f} | {ratio} |")
    if options.csv:
        with open(options.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["rep", "config", "variant", "seconds"])
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
