#!/usr/bin/python3
"""Time an MPI application natively and under papshim, interleaved, in one session.

Each repetition runs every configuration once, in a rotating order, so slow phases of a
shared machine hit all of them alike. A configuration is a label, an input variant and
PAPSHIM_ variables; 'native' runs without the shim. The application's own timer is read
from its output (--timer: a regular expression whose first group, or the group named
'seconds', is seconds; a group named 'minutes' is added, for timers like QE's "1m 3.2s WALL"). Prints one
Markdown table: median and minimum seconds, and the median over repetitions of the ratio
to the native run of the same variant in the same repetition. With --result REGEX, the
text it matches (e.g. QE's total energy line) is shown per configuration, each distinct value
once, so a changed result is seen next to its time.

  examples/apps/app_timing.py --shim build/apps-openmpi/lib/libpapshim.so --np 2 --reps 5 \\
      --app "lmp -in examples/lammps/in.lj-melt -var cells 10 -var steps 500 -var balance {variant} -log none" \\
      --timer "Loop time of ([0-9.eE+-]+)" \\
      --config native:rcb --config sparbit:rcb:ALLGATHER=sparbit,ALLGATHERV=sparbit
  over the emulated network: --wrap "build/apps-openmpi/bin/papshim-run --emulate-network 1gbit"
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
    # The variant may hold ':' itself (imbalance.py's one-late:7:80): the assignments are the
    # part after the last ':' when it has an '='.
    variant, _, assignments = rest.rpartition(":")
    if "=" not in assignments:
        variant, assignments = rest, ""
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
    if options.wrap:  # papshim-run preloads the shim itself: native is --mode off there
        settings = env or {"PAPSHIM_MODE": "off"}
        command = shlex.split(options.wrap) + [arg for k, v in settings.items()
                                               for arg in (f"--{k[len('PAPSHIM_'):].lower().replace('_', '-')}", v)]
        command += ["--"] + shlex.split(options.mpiexec)
    else:
        command = shlex.split(options.mpiexec)
        if env:
            command += ["-x", f"LD_PRELOAD={options.shim}"] + [arg for k, v in env.items() for arg in ("-x", f"{k}={v}")]
    command += ["-n", str(options.np)] + shlex.split(options.app.format(variant=variant))
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=options.cwd)
    match = re.search(options.timer, done.stdout)
    result = re.search(options.result, done.stdout, re.MULTILINE) if options.result else None
    if done.returncode != 0 or not match or (options.result and not result):
        sys.exit(f"app_timing: run failed or printed no timer/result\n$ {shlex.join(command)}\n"
                 f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    groups = match.groupdict()
    seconds = groups["seconds"] if "seconds" in groups else match.group(1)
    return float(seconds) + 60 * float(groups.get("minutes") or 0), result.group(0).strip() if result else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", required=True, help="application command; {variant} is replaced")
    parser.add_argument("--timer", required=True, help="regex; group 1 = seconds, from stdout")
    parser.add_argument("--config", action="append", required=True, help="label:variant[:NAME=VALUE,...]")
    parser.add_argument("--shim", help="libpapshim.so (without --wrap)")
    parser.add_argument("--wrap", default=None,
                        help="run through papshim-run with these options, e.g. 'papshim-run --emulate-network 1gbit'; "
                             "the variables become its --name options and native runs are --mode off")
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--mpiexec", default=f"mpiexec.openmpi {OPEN_MPI_FLAGS}")
    parser.add_argument("--cwd", default=None, help="folder to run in (QE writes its scratch there)")
    parser.add_argument("--csv", default=None, help="also write every measurement here")
    parser.add_argument("--result", default=None, help="regex (multiline) of a result line to show per configuration")
    options = parser.parse_args()
    if not options.wrap and not options.shim:
        parser.error("--shim is needed unless --wrap runs papshim-run")
    configs = [parse_config(text) for text in options.config]
    # Keyed by (label, variant): one label may run several variants (native:a, native:b).
    times = {(label, variant): [] for label, variant, _ in configs}
    results = {(label, variant): [] for label, variant, _ in configs}
    rows = []
    for rep in range(options.reps):
        shift = rep % len(configs)
        for label, variant, env in configs[shift:] + configs[:shift]:
            seconds, result = run_once(options, variant, env)
            times[(label, variant)].append((rep, seconds))
            if result not in results[(label, variant)]:
                results[(label, variant)].append(result)
            rows.append({"rep": rep, "config": label, "variant": variant, "seconds": seconds})
            print(f"rep {rep + 1}/{options.reps} {label:24s} {variant:16s} {seconds:8.3f} s", file=sys.stderr, flush=True)
    native = {variant: dict(times[(label, variant)]) for label, variant, _ in configs if label.startswith("native")}
    result_header, result_rule = (" result |", "---|") if options.result else ("", "")
    print(f"| configuration | variant | median s | min s | ratio to native (median of {options.reps}) |{result_header}")
    print(f"|---|---|---|---|---|{result_rule}")
    for label, variant, _ in configs:
        values = [s for _, s in times[(label, variant)]]
        reference = native.get(variant)
        if label.startswith("native"):
            ratio = "1"
        elif reference:
            ratio = f"{statistics.median(s / reference[rep] for rep, s in times[(label, variant)]):.3f}"
        else:
            ratio = "n/a"
        shown = f" {' / '.join(f'`{r}`' for r in results[(label, variant)])} |" if options.result else ""
        print(f"| {label} | {variant} | {statistics.median(values):.3f} | {min(values):.3f} | {ratio} |{shown}")
    if options.csv:
        with open(options.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["rep", "config", "variant", "seconds"])
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
