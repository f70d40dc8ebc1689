#!/usr/bin/python3
"""MPI integration tests: the examples run natively and under the preloaded shim.

One subcommand per test case; CTest passes the build's MPI, launcher, library and folders.
Every run's command and output are printed when a check fails, so a failing test says what
to rerun by hand.
"""
import argparse
import csv
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

# The algorithm names of the shim's contract for PAPSHIM_ALLGATHER(V).
ALLGATHER_ALGORITHMS = ("native", "auto", "sparbit", "ring", "neighbor_exchange",
                        "recursive_doubling", "bruck", "gather_bcast", "bdr", "bslb")
COLLECTIVES = ("allgather", "allgatherv", "allreduce", "reduce")
RUN_TIMEOUT_S = 120


class CheckFailed(Exception):
    pass


class Run:
    def __init__(self, command, returncode, stdout, stderr):
        self.command, self.returncode, self.stdout, self.stderr = command, returncode, stdout, stderr

    def describe(self):
        return (f"command: {shlex.join(self.command)}\nexit status: {self.returncode}\n"
                f"--- stdout ---\n{self.stdout[-4000:]}--- stderr ---\n{self.stderr[-4000:]}")

    def line(self, prefix):
        """The first stdout line starting with prefix (e.g. 'checksum ')."""
        for text in self.stdout.splitlines():
            if text.startswith(prefix):
                return text
        raise CheckFailed(f"no '{prefix.strip()}' line in the output\n{self.describe()}")


class Launcher:
    """Builds mpiexec command lines that hand environment variables to the ranks only."""

    def __init__(self, options):
        self.mpi = options.mpi
        self.mpiexec = shlex.split(options.mpiexec)
        self.shim = options.shim

    def forward(self, env):
        flags = []
        for name, value in env.items():
            flags += ["-x", f"{name}={value}"] if self.mpi == "openmpi" else ["-env", name, value]
        return flags

    def command(self, np, app, env):
        return self.mpiexec + self.forward(env) + ["-n", str(np)] + app

    def mpmd(self, parts):
        """parts: [(np, env, app)] as one MPMD job (per-part variables)."""
        command = list(self.mpiexec)
        for index, (np, env, app) in enumerate(parts):
            if index:
                command.append(":")
            command += ["-n", str(np)] + self.forward(env) + app
        return command

    def shim_env(self, **variables):
        env = {"LD_PRELOAD": self.shim}
        env.update({f"PAPSHIM_{name.upper()}": str(value) for name, value in variables.items()})
        return env


def clean_environment():
    """The tests set every PAPSHIM_ variable they rely on; none leaks in from the caller."""
    return {name: value for name, value in os.environ.items()
            if not name.startswith("PAPSHIM_") and name != "LD_PRELOAD"}


def execute(command):
    print(f"$ {shlex.join(command)}", flush=True)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              env=clean_environment(), check=False)
    except subprocess.TimeoutExpired as timeout:
        raise CheckFailed(f"timed out after {RUN_TIMEOUT_S} s: {shlex.join(command)}\n"
                          f"stdout: {timeout.stdout}\nstderr: {timeout.stderr}") from timeout
    return Run(command, done.returncode, done.stdout, done.stderr)


def expect_success(run):
    if run.returncode != 0:
        raise CheckFailed(f"the run failed\n{run.describe()}")
    if run.line("verify ") != "verify errors=0":
        raise CheckFailed(f"the example found wrong results\n{run.describe()}")
    return run


def expect_same_checksum(reference, run, what):
    expected, actual = reference.line("checksum "), run.line("checksum ")
    if expected != actual:
        raise CheckFailed(f"{what}: checksum differs from the native run\n"
                          f"native: {expected}\nshim:   {actual}\n{run.describe()}")


def documented_columns(docs):
    """The calls.csv columns listed in docs/trace-format.md, in order."""
    text = (Path(docs) / "trace-format.md").read_text()
    section = text.split("## calls.csv", 1)[1].split("\n## ", 1)[0]
    columns = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    if not columns:
        raise CheckFailed("no column table found under '## calls.csv' in docs/trace-format.md")
    return columns


def read_trace(directory, docs, expect_files=("calls.csv", "summary.txt", "trace.json", "meta.txt")):
    """Checks the trace folder's files and returns the calls.csv rows."""
    directory = Path(directory)
    missing = [name for name in expect_files if not (directory / name).is_file()]
    if missing:
        present = sorted(p.name for p in directory.iterdir()) if directory.is_dir() else "no such folder"
        raise CheckFailed(f"trace folder {directory} lacks {', '.join(missing)} (has: {present})")
    if "trace.json" in expect_files:
        with open(directory / "trace.json") as handle:
            try:
                json.load(handle)
            except json.JSONDecodeError as error:
                raise CheckFailed(f"{directory}/trace.json is not valid JSON: {error}") from error
    with open(directory / "calls.csv", newline="") as handle:
        reader = csv.DictReader(handle)
        columns = documented_columns(docs)
        if reader.fieldnames != columns:
            raise CheckFailed(f"{directory}/calls.csv header {reader.fieldnames}\n"
                              f"docs/trace-format.md lists {columns}")
        return list(reader)


def check_complete(rows, ranks, calls_per_collective, where):
    """One row per rank per call: every (comm, seq) has each rank exactly once."""
    per_collective = Counter(row["collective"] for row in rows)
    for collective, calls in calls_per_collective.items():
        if per_collective[collective] != ranks * calls:
            raise CheckFailed(f"{where}: {per_collective[collective]} {collective} rows, expected "
                              f"{ranks} ranks x {calls} calls = {ranks * calls} (rows: {dict(per_collective)})")
    extra = set(per_collective) - set(calls_per_collective)
    if extra:
        raise CheckFailed(f"{where}: unexpected collectives {sorted(extra)} in calls.csv")
    calls = defaultdict(list)
    for row in rows:
        calls[(row["comm"], row["seq"])].append(int(row["rank"]))
    for key, call_ranks in calls.items():
        if sorted(call_ranks) != list(range(ranks)):
            raise CheckFailed(f"{where}: call {key} has rows for ranks {sorted(call_ranks)}")
    return calls


def trace_dir(options, name):
    """A fresh scratch folder path for one trace; the shim creates the folder itself."""
    path = Path(options.work) / name
    shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# --- the test cases -------------------------------------------------------------------

def report_algorithms(directory, docs, requested):
    """The trace says what ran: the requested algorithm, or native where the shim fell back."""
    rows = read_trace(directory, docs, expect_files=("calls.csv",))
    ran = Counter(row["algorithm"] for row in rows if row["collective"] in ("allgather", "allgatherv"))
    allowed = {"native"} if requested == "native" else {requested, "native"}
    if requested != "auto" and set(ran) - allowed:
        raise CheckFailed(f"{directory}: PAPSHIM_ALLGATHER(V)={requested} but calls.csv says {dict(ran)} ran")
    print(f"  allgather(v) ran: {dict(ran)}")


def check_locations(rows, source_name, where):
    """Every call site resolves to file:line in source_name, a file that exists."""
    locations = sorted({row["location"] for row in rows})
    for location in locations:
        path = location.rpartition(":")[0]
        if Path(path).name != source_name or (Path(path).is_absolute() and not Path(path).is_file()):
            raise CheckFailed(f"{where}: expected every call site in an existing {source_name}, got {locations} "
                              f"(functions {sorted({row['function'] for row in rows})})")
    return locations


def case_equivalence(options, launcher):
    """Native vs off/profile/dispatch and every allgather algorithm: identical checksums."""
    np = options.np
    example = [str(Path(options.bin) / "imbalance")]
    root = np - 1
    variants = [
        ("int", ["--count", "37", "--pattern", "random:2", "--iterations", "3"], {}),
        ("in-place double root", ["--count", "1000", "--type", "double", "--in-place", "--root", str(root),
                                  "--pattern", "staircase:1", "--iterations", "3"],
         # Debian's MPICH 4.0.2 crashes natively in Reduce with MPI_IN_PLACE at the root
         # unless its device-level collectives are off (DESIGN §7); these runs select no
         # Reduce algorithm, so papshim forwards the Reduce to MPICH and they need it too.
         {"MPIR_CVAR_DEVICE_COLLECTIVES": "none"} if options.mpi == "mpich" else {}),
    ]
    algorithms = options.algorithms.split(",") if options.algorithms else ALLGATHER_ALGORITHMS
    for label, args, extra_env in variants:
        reference = expect_success(execute(launcher.command(np, example + args, extra_env)))
        configurations = [("off", {"mode": "off"}),
                          ("profile", {"mode": "profile", "trace_dir": trace_dir(options, f"np{np}-{label}".replace(" ", "-"))}),
                          ("dispatch", {"mode": "dispatch"})]
        configurations += [(f"dispatch allgather(v)={name}",
                            {"mode": "dispatch", "allgather": name, "allgatherv": name,
                             "trace_dir": trace_dir(options, f"np{np}-{label}-{name}".replace(" ", "-"))})
                           for name in algorithms]
        for what, variables in configurations:
            env = {**extra_env, **launcher.shim_env(**variables)}
            run = expect_success(execute(launcher.command(np, example + args, env)))
            expect_same_checksum(reference, run, f"np {np} {label}, {what}")
            if "allgather" in variables:
                report_algorithms(variables["trace_dir"], options.docs, variables["allgather"])
        print(f"np {np} {label}: {len(configurations)} shim configurations match the native checksum")


def case_profile(options, launcher):
    """One late rank: a complete trace whose times show that rank's delay before every call."""
    np, late, delay_ms, iterations = 4, 2, 20, 30
    directory = trace_dir(options, "profile-one-late")
    # The delay precedes every collective, so each call (not only the first of an
    # iteration) has rank 2 last.
    example = [str(Path(options.bin) / "imbalance"), "--pattern", f"one-late:{late}:{delay_ms}", "--delay-per", "call",
               "--iterations", str(iterations), "--count", "256"]
    expect_success(execute(launcher.command(np, example, launcher.shim_env(mode="profile", trace_dir=directory))))
    rows = read_trace(directory, options.docs)
    calls = check_complete(rows, np, dict.fromkeys(COLLECTIVES, iterations), str(directory))
    # The late rank sleeps delay_ms between leaving one call and entering the next, and a
    # sleep never ends early: on that rank's own clock each gap is at least the delay, however
    # loaded the machine. (Which rank arrives last is not asserted strictly: with other jobs
    # on the cores, a rank descheduled for longer than the delay can arrive after it.)
    late_rows = sorted((row for row in rows if int(row["rank"]) == late and row["comm"] == "world"),
                       key=lambda row: float(row["arrival_s"]))
    gaps = [float(after["arrival_s"]) - float(before["exit_s"]) for before, after in zip(late_rows, late_rows[1:])]
    shortest = min(gaps)
    if shortest < 0.99 * delay_ms / 1000:
        raise CheckFailed(f"rank {late} sleeps {delay_ms} ms before each call, but the trace has a gap of "
                          f"{shortest * 1000:.3f} ms between two of its calls")
    last = Counter()
    arrivals = defaultdict(dict)
    for row in rows:
        arrivals[(row["comm"], row["seq"])][int(row["rank"])] = float(row["arrival_s"])
    for per_rank in arrivals.values():
        last[max(per_rank, key=per_rank.get)] += 1
    share = last[late] / len(calls)
    print(f"rank {late}: shortest gap between calls {shortest * 1000:.3f} ms; arrived last in {last[late]} of "
          f"{len(calls)} calls ({share:.0%}); last arrivals: {dict(last)}")
    # The job-global clock lines the ranks up: the late rank is last in most calls.
    if share <= 0.5:
        raise CheckFailed(f"rank {late} was the last arrival in only {share:.0%} of the calls (need a majority)")
    functions = {row["function"] for row in rows}
    print(f"call sites: {len({row['callsite'] for row in rows})}, functions {sorted(functions)}")
    if not {"exchange_halo", "global_sum"} <= functions:
        raise CheckFailed(f"expected call sites in exchange_halo and global_sum, got functions {sorted(functions)}")
    check_locations(rows, "imbalance.c", str(directory))
    check_prediction_report(directory, rows)
    refuse_recovery_of_finished(options, directory)


def check_prediction_report(directory, rows):
    """Profile mode's predictor in summary.txt: one row per call site, predictions from each
    site's second call, and the persistently late rank predicted last in most calls (the
    majority asked of the trace above; not a timing bound)."""
    predicted = [row for row in rows if row.get("predicted_arrival_s", "")]
    if not predicted:
        raise CheckFailed(f"{directory}/calls.csv: no row has a predicted_arrival_s")
    summary = (directory / "summary.txt").read_text()
    section = summary.partition("arrival prediction per call site")[2]
    if not section:
        raise CheckFailed(f"{directory}/summary.txt has no 'arrival prediction per call site' section")
    site_rows = re.findall(r"^\s*\d+\s+(\w+)\s+(\d+)/(\d+)\s.*?(?:(\d+)/(\d+) \(\d+%\))?$", section, re.MULTILINE)
    collectives = {collective for collective, *_ in site_rows}
    if collectives != set(COLLECTIVES):
        raise CheckFailed(f"{directory}/summary.txt: prediction rows for {sorted(collectives)}, expected {sorted(COLLECTIVES)}")
    right = assessed = 0
    for collective, with_prediction, total, last_right, last_assessed in site_rows:
        if int(with_prediction) * 2 < int(total):
            raise CheckFailed(f"{directory}/summary.txt: {collective} has a prediction in only {with_prediction} "
                              f"of {total} rows")
        right += int(last_right or 0)
        assessed += int(last_assessed or 0)
    if assessed == 0 or right * 2 <= assessed:
        raise CheckFailed(f"{directory}/summary.txt: the predicted last arriver was right in {right} of {assessed} "
                          "calls (need a majority)")
    print(f"prediction report: {len(site_rows)} call sites, predicted last arriver right in {right} of {assessed}")


def refuse_recovery_of_finished(options, directory):
    """papshim-report --recover on a trace MPI_Finalize merged: one error line, nothing changed."""
    before = {name: (directory / name).read_bytes() for name in ("calls.csv", "meta.txt")}
    run = execute([str(Path(options.bin) / "papshim-report"), str(directory), "--recover", "--no-plots"])
    lines = run.stderr.strip().splitlines()
    if run.returncode != 2 or len(lines) != 1 or "no spill files" not in lines[0]:
        raise CheckFailed(f"expected papshim-report --recover to refuse a finished trace in one line\n{run.describe()}")
    changed = [name for name, text in before.items() if (directory / name).read_bytes() != text]
    if changed:
        raise CheckFailed(f"papshim-report --recover changed {changed} of a finished trace\n{run.describe()}")
    print(f"--recover on a finished trace refused: {lines[0]}")


def case_bench(options, launcher):
    """papshim-bench's sweep: a valid JSON, and every call of a collective from one call site.

    papshim keys its arrival history by call site, so the check, warm-up and measured calls
    must share one, as an application's loop does; when they did not, the warm-up never
    warmed the measured calls' predictions."""
    np = 3
    directory = trace_dir(options, "bench-sweep")
    output = Path(options.work) / "bench-sweep.json"
    bench = [str(Path(options.bin) / "papshim-bench"), "--suite", "sweep", "--collective", "allreduce",
             "--bytes", "64K", "--algorithms", "native,predicted_chain,auto", "--patterns", "one-late",
             "--delays", "10tau", "--iterations", "3", "--warmup", "2", "--json", str(output)]
    run = execute(launcher.command(np, bench, {"PAPSHIM_TRACE_DIR": str(directory)}))
    if run.returncode != 0:
        raise CheckFailed(f"papshim-bench failed\n{run.describe()}")
    with open(output) as handle:
        results = json.load(handle)["results"]
    names = [cell["name"] for cell in results["sizes"][0]["points"][0]["algorithms"]]
    if names != ["native", "predicted_chain", "auto"]:
        raise CheckFailed(f"{output}: algorithms {names}")
    rows = read_trace(directory, options.docs, expect_files=("calls.csv",))
    sites = defaultdict(set)
    for row in rows:
        if row["collective"] == "allreduce":
            sites[(row["rank"], row["comm"])].add(row["callsite"])
    # predicted_chain and auto have two communicators each: one for the correctness check,
    # one for the 2 + 3 warm-up and measured calls.
    if len(sites) != 4 * np or any(len(found) != 1 for found in sites.values()):
        raise CheckFailed(f"expected one Allreduce call site per rank and communicator, got "
                          f"{ {key: sorted(found) for key, found in sites.items()} }")
    per_comm = sorted(Counter(row["comm"] for row in rows if row["rank"] == "0").values())
    if per_comm != [1, 1, 5, 5]:
        raise CheckFailed(f"expected 1 check call and 5 timed calls on each algorithm's "
                          f"communicators, got {per_comm} calls per communicator at rank 0")
    print(f"papshim-bench: {len(rows)} traced calls, one call site per communicator")


def expect_init_failure(run, *words):
    if run.returncode == 0:
        raise CheckFailed(f"expected the job to fail at MPI_Init\n{run.describe()}")
    missing = [word for word in words if word not in run.stderr]
    if missing:
        raise CheckFailed(f"stderr does not mention {missing}\n{run.describe()}")
    if "checksum" in run.stdout:
        raise CheckFailed(f"the application ran although the configuration is invalid\n{run.describe()}")
    print(f"rejected as expected: {[line for line in run.stderr.splitlines() if 'papshim' in line][:2]}")


def case_invalid(options, launcher):
    """Invalid or rank-dependent configuration stops the job at MPI_Init, naming the variable."""
    example = [str(Path(options.bin) / "imbalance"), "--iterations", "1", "--count", "4"]
    for name, value in (("mode", "bogus"), ("allgather", "nosuch"), ("callsite_depth", "0")):
        run = execute(launcher.command(2, example, launcher.shim_env(**{name: value})))
        expect_init_failure(run, f"PAPSHIM_{name.upper()}", value)
    run = execute(launcher.mpmd([(1, launcher.shim_env(mode="off"), example),
                                 (1, launcher.shim_env(mode="profile"), example)]))
    expect_init_failure(run, "PAPSHIM_MODE")


def case_unwritable_trace(options, launcher):
    """A trace folder that cannot be created costs the trace, never the application."""
    directory = "/proc/papshim-no"
    example = [str(Path(options.bin) / "imbalance"), "--iterations", "3", "--count", "16"]
    reference = expect_success(execute(launcher.command(2, example, {})))
    run = expect_success(execute(launcher.command(2, example, launcher.shim_env(mode="profile", trace_dir=directory))))
    expect_same_checksum(reference, run, "unwritable trace folder")
    if directory not in run.stderr:
        raise CheckFailed(f"no warning naming {directory} on stderr\n{run.describe()}")
    print(f"warning: {[line for line in run.stderr.splitlines() if directory in line][0]}")
    # A file where the folder should be: the warning names it as a file, not "Not a directory".
    file = trace_dir(options, "unwritable-trace-file")
    file.write_text("not a folder\n")
    run = expect_success(execute(launcher.command(2, example, launcher.shim_env(mode="profile", trace_dir=file))))
    expect_same_checksum(reference, run, "a file as the trace folder")
    said = f"trace directory {file} is an existing file, not a directory"
    if said not in run.stderr or file.read_text() != "not a folder\n":
        raise CheckFailed(f"expected a warning saying '{said}' and the file untouched\n{run.describe()}")
    print(f"warning: {[line for line in run.stderr.splitlines() if said in line][0]}")


def case_fortran(options, launcher):
    """Fortran callers (use mpi, mpif.h, use mpi_f08) are intercepted, with call sites in the program."""
    np, iterations = 3, 4
    for program in ("imbalance_f90", "imbalance_mpifh") + (("imbalance_f08",) if options.f08 else ()):
        example = [str(Path(options.bin) / program), str(iterations), "50", "1", "2"]
        reference = expect_success(execute(launcher.command(np, example, {})))
        directory = trace_dir(options, f"fortran-{program}")
        run = expect_success(execute(launcher.command(np, example, launcher.shim_env(mode="profile", trace_dir=directory))))
        expect_same_checksum(reference, run, program)
        rows = read_trace(directory, options.docs)
        check_complete(rows, np, dict.fromkeys(COLLECTIVES, iterations), f"{program} {directory}")
        locations = check_locations(rows, "imbalance_body.inc", program)
        functions = {row["function"].partition(".")[0] for row in rows}  # gfortran: exchange_halo.1
        if functions != {"exchange_halo", "global_sum"}:
            raise CheckFailed(f"{program}: expected call sites in exchange_halo and global_sum, got {sorted(functions)}")
        print(f"{program}: {len(rows)} rows, locations {locations}")
        check_sparbit_allgatherv(options, launcher, np, example, reference, f"fortran-{program}")


def case_python(options, launcher):
    """mpi4py: same checksum with and without the shim, and a complete trace."""
    np, iterations = 3, 4
    example = ["/usr/bin/python3", str(Path(options.bin) / "imbalance.py"), "--iterations", str(iterations),
               "--count", "100", "--pattern", "one-late:1:5", "--in-place", "--root", "2"]
    reference = expect_success(execute(launcher.command(np, example, {})))
    directory = trace_dir(options, "python")
    run = expect_success(execute(launcher.command(np, example, launcher.shim_env(mode="profile", trace_dir=directory))))
    expect_same_checksum(reference, run, "mpi4py")
    rows = read_trace(directory, options.docs)
    check_complete(rows, np, dict.fromkeys(COLLECTIVES, iterations), str(directory))
    print(f"mpi4py: {len(rows)} rows for {np} ranks x {iterations} iterations x 4 collectives")
    check_sparbit_allgatherv(options, launcher, np, example, reference, "python")


def check_sparbit_allgatherv(options, launcher, np, example, reference, name):
    """Under PAPSHIM_ALLGATHERV=sparbit the caller's Allgatherv runs papshim's Sparbit, with native results."""
    directory = trace_dir(options, f"{name}-sparbit")
    env = launcher.shim_env(mode="dispatch", allgatherv="sparbit", trace_dir=directory)
    run = expect_success(execute(launcher.command(np, example, env)))
    expect_same_checksum(reference, run, f"{name} with PAPSHIM_ALLGATHERV=sparbit")
    rows = read_trace(directory, options.docs)
    ran = {row["algorithm"] for row in rows if row["collective"] == "allgatherv"}
    if ran != {"sparbit"}:
        raise CheckFailed(f"{name}: Allgatherv under PAPSHIM_ALLGATHERV=sparbit ran {sorted(ran)}")
    print(f"{name}: Allgatherv ran sparbit in {sum(r['collective'] == 'allgatherv' for r in rows)} rows")


def case_launcher(options, launcher):
    """papshim-run: --help lists every variable, bad flags exit 2, a real run works."""
    script = str(Path(options.bin) / "papshim-run")
    variables = execute([str(Path(options.bin) / "papshim-info"), "--variables"])
    names = [line.split("\t")[0] for line in variables.stdout.splitlines() if line.strip()]
    if variables.returncode != 0 or not names:
        raise CheckFailed(f"papshim-info --variables listed nothing\n{variables.describe()}")
    helped = execute([script, "--help"])
    missing = [name for name in names if name not in helped.stdout]
    if helped.returncode != 0 or missing:
        raise CheckFailed(f"papshim-run --help misses {missing}\n{helped.describe()}")
    for bad in (["--no-such-flag", "1", "--", "true"], ["--mode"], ["--mpi", "lam", "--", "true"], ["true"]):
        run = execute([script] + bad)
        lines = run.stderr.strip().splitlines()
        if run.returncode != 2 or len(lines) != 1 or not lines[0].startswith("papshim-run:"):
            raise CheckFailed(f"expected exit 2 and one 'papshim-run:' line\n{run.describe()}")
    other = "mpich" if options.mpi == "openmpi" else "openmpi"
    run = execute([script, "--", f"mpiexec.{other}", "-n", "1", "true"])
    if run.returncode != 2 or other not in run.stderr:
        raise CheckFailed(f"expected papshim-run to refuse the {other} launcher\n{run.describe()}")
    example = [str(Path(options.bin) / "imbalance"), "--iterations", "2", "--count", "8"]
    reference = expect_success(execute(launcher.command(2, example, {})))
    directory = trace_dir(options, "papshim-run")
    run = expect_success(execute([script, "--mode", "profile", "--trace", str(directory), "--allgather", "ring",
                                  "--"] + launcher.command(2, example, {})))
    expect_same_checksum(reference, run, "papshim-run")
    check_complete(read_trace(directory, options.docs), 2, dict.fromkeys(COLLECTIVES, 2), str(directory))
    print("papshim-run: help, bad flags, launcher mismatch and a profiled run behave")


def recover_and_check(options, directory, dying, calls, saved, functions):
    """papshim-report recovers the dead job's trace; the dying rank's records hold every call it made."""
    if (directory / "calls.csv").exists():
        raise CheckFailed(f"{directory}/calls.csv exists although the job never reached MPI_Finalize")
    report = execute([str(Path(options.bin) / "papshim-report"), str(directory), "--no-plots"])
    if report.returncode != 0:
        raise CheckFailed(f"papshim-report could not recover the trace\n{report.describe()}")
    for expected in ("did not reach MPI_Finalize", f"rank {dying}: {calls} records, saved at {saved}"):
        if expected not in report.stdout:
            raise CheckFailed(f"the report does not say '{expected}'\n{report.describe()}")
    rows = read_trace(directory, options.docs, expect_files=("calls.csv", "trace.json", "meta.txt"))
    mine = [row for row in rows if int(row["world_rank"]) == dying]
    seqs = sorted(int(row["seq"]) for row in mine)
    if seqs != list(range(calls)):
        raise CheckFailed(f"{directory}: rank {dying} made calls 0..{calls - 1} before it died, the recovered "
                          f"trace has {len(seqs)} of them (first {seqs[:3]}, last {seqs[-3:]})")
    found = {row["function"].partition(".")[0] for row in mine}
    if not functions <= found:
        raise CheckFailed(f"{directory}: expected call sites in {sorted(functions)}, got {sorted(found)}")
    print(f"recovered: rank {dying} has all {calls} calls, saved at {saved}; functions {sorted(found)}")


def case_abort(options, launcher):
    """A traced job dies (MPI_Abort, SIGTERM, Fortran MPI_Abort, a fatal MPI error on Open MPI): its trace is
    recovered complete up to the end on the dying rank."""
    np, dying, calls = 2, 1, 10000  # more calls than PAPSHIM_TRACE_BUFFER: spilled and buffered records
    both = {"sum_step", "gather_step"}
    runs = [("abort", "MPI_Abort", calls, [options.program, str(calls), str(dying), "abort"], both),
            ("sigterm", "SIGTERM", calls, [options.program, str(calls), str(dying), "sigterm"], both),
            # The application's handler survives SIGTERM: the MPI_Abort after it saves the rest.
            ("term-then-abort", "MPI_Abort", 2 * calls,
             [options.program, str(calls), str(dying), "term-then-abort"], both)]
    if options.mpi == "openmpi":  # MPICH's launcher kills every rank with SIGKILL at once
        runs.append(("fatal-error", "_exit", calls, [options.program, str(calls), str(dying), "fatal"], both))
    if options.fortran_program and options.mpi == "openmpi":  # MPICH's Fortran layer calls the C MPI_Abort
        runs.append(("fortran", "MPI_Abort", calls, [options.fortran_program, str(calls), str(dying)], set()))
    if options.fortran_f08_program:  # use mpi_f08's MPI_Abort calls PMPI_Abort on both MPIs
        runs.append(("fortran-f08", "MPI_Abort", calls, [options.fortran_f08_program, str(calls), str(dying)], set()))
    for name, saved, made, app, functions in runs:
        directory = trace_dir(options, f"abort-{name}")
        # An earlier job's finished trace in the folder (its meta.txt is papshim's): MPI_Init removes
        # its merged files, so they cannot pass for this run's (recover_and_check: no calls.csv
        # before the report).
        directory.mkdir()
        for stale in ("calls.csv", "trace.json", "summary.txt"):
            (directory / stale).write_text("an earlier job's\n")
        (directory / "meta.txt").write_text("papshim_version=0.1.0\nworld_size=5\nrecords=1\nfinalized=1\n")
        env = launcher.shim_env(mode="profile", trace_dir=directory, trace_buffer=4096)
        run = execute(launcher.command(np, app, env))
        if run.returncode == 0:
            raise CheckFailed(f"expected the job to end with an error\n{run.describe()}")
        if (directory / "summary.txt").exists():
            raise CheckFailed(f"{directory}/summary.txt of an earlier job is still there")
        recover_and_check(options, directory, dying, made, saved, functions)


def wait_for_job(process, command):
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired as timeout:
        process.kill()
        raise CheckFailed(f"timed out after {RUN_TIMEOUT_S} s: {shlex.join(command)}") from timeout
    return Run(command, process.returncode, stdout, stderr)


def case_claimed_trace(options, launcher):
    """Jobs that trace into one folder: one that runs (or died unrecovered) keeps it, the next traces into
    folder.1, and each trace is complete."""
    np, iterations = 2, 100
    directory = trace_dir(options, "claimed")
    following = directory.with_name(directory.name + ".1")
    shutil.rmtree(following, ignore_errors=True)
    example = [str(Path(options.bin) / "imbalance"), "--pattern", "one-late:1:20", "--delay-per", "iteration",
               "--iterations", str(iterations), "--count", "64"]
    command = launcher.command(np, example, launcher.shim_env(mode="profile", trace_dir=directory))
    # The second job starts once the first holds the folder (its lock is there), so they overlap.
    print(f"$ {shlex.join(command)}  (twice, the second once the first holds {directory})", flush=True)
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=clean_environment())
    lock = directory / "papshim.lock"
    for _ in range(600):
        if lock.exists() or first.poll() is not None:
            break
        time.sleep(0.05)
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=clean_environment())
    runs = [expect_success(wait_for_job(first, command)), expect_success(wait_for_job(second, command))]
    if f"this job traces into {following}" not in runs[1].stderr:
        raise CheckFailed(f"the second job does not say that it traces into {following}\n{runs[1].describe()}")
    for folder in (directory, following):
        check_complete(read_trace(folder, options.docs), np, dict.fromkeys(COLLECTIVES, iterations), str(folder))
        if (folder / "papshim.lock").exists():
            raise CheckFailed(f"{folder}/papshim.lock is left after the job's MPI_Finalize")
    print(f"two overlapping jobs: complete traces in {directory.name} and {following.name}")

    # A folder whose job still runs (its lock names this test's own process): kept as it is.
    lock.write_text(f"host={socket.gethostname()}\npid={os.getpid()}\nstarted=now\n")
    before = (directory / "calls.csv").read_bytes()
    run = expect_success(execute(command))
    if (directory / "calls.csv").read_bytes() != before or not lock.exists():
        raise CheckFailed(f"a job wrote into {directory}, which another job holds\n{run.describe()}")
    check_complete(read_trace(following, options.docs), np, dict.fromkeys(COLLECTIVES, iterations), str(following))
    report = execute([str(Path(options.bin) / "papshim-report"), str(directory), "--recover", "--no-plots"])
    if report.returncode == 0 or "still runs" not in report.stderr:
        raise CheckFailed(f"papshim-report recovered a trace whose job still runs\n{report.describe()}")
    print(f"a held folder is kept; papshim-report refuses to recover it: {report.stderr.strip()}")


def finalize_line(run, directory, calls, ranks):
    """The one line rank 0 prints after the merge: how many calls, where, and how to read them."""
    expected = f"papshim: trace of {calls} calls ({calls * ranks} records) in {directory} (papshim-report {directory})"
    found = [line for line in run.stderr.splitlines() if line.startswith("papshim: trace of ")]
    if found != [expected]:
        raise CheckFailed(f"expected exactly one line '{expected}' on stderr, found {found}\n{run.describe()}")


def case_trace_dir(options, launcher):
    """What a job may do in PAPSHIM_TRACE_DIR: a folder with files of papshim's names that is no papshim trace is
    left untouched (the job traces into folder.1 and says so); a folder of unrelated files is traced into, those
    files kept; an earlier papshim trace is replaced with its plots, and the job says so; every traced job ends
    with one line saying where its trace is."""
    np, iterations = 2, 2
    calls = iterations * len(COLLECTIVES)
    example = [str(Path(options.bin) / "imbalance"), "--iterations", str(iterations), "--count", "8"]

    def run_into(directory, **extra):
        env = launcher.shim_env(mode="profile", trace_dir=directory, **extra)
        return expect_success(execute(launcher.command(np, example, env)))

    # A user's folder that happens to hold a summary.txt: left as it is.
    foreign = trace_dir(options, "trace-dir-foreign")
    following = foreign.with_name(foreign.name + ".1")
    shutil.rmtree(following, ignore_errors=True)
    foreign.mkdir()
    (foreign / "summary.txt").write_text("my thesis\n")
    (foreign / "main.c").write_text("int main(void) { return 0; }\n")
    run = run_into(foreign)
    if sorted(p.name for p in foreign.iterdir()) != ["main.c", "summary.txt"] or \
            (foreign / "summary.txt").read_text() != "my thesis\n":
        raise CheckFailed(f"the job changed {foreign}, which is not a papshim trace: it holds "
                          f"{sorted(p.name for p in foreign.iterdir())}, summary.txt says "
                          f"{(foreign / 'summary.txt').read_text()!r}\n{run.describe()}")
    said = [line for line in run.stderr.splitlines() if str(foreign) in line and "not a papshim trace" in line]
    if len(said) != 1 or f"this job traces into {following}" not in said[0]:
        raise CheckFailed(f"expected one line saying {foreign} is not a papshim trace and that the job traces "
                          f"into {following}\n{run.describe()}")
    check_complete(read_trace(following, options.docs), np, dict.fromkeys(COLLECTIVES, iterations), str(following))
    finalize_line(run, following, calls, np)
    print(f"a folder that is not a papshim trace is kept: {said[0]}")

    # A folder of the user's own files only: traced into, the files kept.
    plain = trace_dir(options, "trace-dir-plain")
    plain.mkdir()
    (plain / "main.c").write_text("int main(void) { return 0; }\n")
    run = run_into(plain)
    if (plain / "main.c").read_text() != "int main(void) { return 0; }\n" or "replacing" in run.stderr:
        raise CheckFailed(f"the job changed the user's file in {plain} or claims to replace a trace\n{run.describe()}")
    check_complete(read_trace(plain, options.docs), np, dict.fromkeys(COLLECTIVES, iterations), str(plain))
    finalize_line(run, plain, calls, np)

    # An earlier papshim trace with its plots: replaced, plots included; other files kept.
    report = execute([str(Path(options.bin) / "papshim-report"), str(plain)])
    if report.returncode != 0:
        raise CheckFailed(f"papshim-report failed\n{report.describe()}")
    plots = ["plot-sites.csv", "plot-data.csv", "pap-omega.png", "pap-heatmap-1.png"]
    for name in plots:  # without matplotlib only the plot-*.csv are there
        if not (plain / name).exists():
            (plain / name).write_text("an earlier plot\n")
    (plain / "pap-heatmap-mine.png").write_text("not one papshim-report writes\n")
    run = run_into(plain, verbose=1)
    left = [name for name in plots if (plain / name).exists()]
    if left:
        raise CheckFailed(f"the earlier trace's plots {left} are left in {plain}\n{run.describe()}")
    if not (plain / "main.c").exists() or not (plain / "pap-heatmap-mine.png").exists():
        raise CheckFailed(f"the job removed files papshim did not write from {plain}\n{run.describe()}")
    replacing = [line for line in run.stderr.splitlines() if line == f"papshim: replacing the earlier trace in {plain}"]
    if len(replacing) != 1:
        raise CheckFailed(f"expected one line 'papshim: replacing the earlier trace in {plain}'\n{run.describe()}")
    check_complete(read_trace(plain, options.docs), np, dict.fromkeys(COLLECTIVES, iterations), str(plain))
    finalize_line(run, plain, calls, np)  # once, PAPSHIM_VERBOSE=1 or not
    print(f"an earlier trace is replaced with its plots: {replacing[0]}")


def case_report_errors(options, launcher):
    """papshim-report on what is not a trace directory: one line each, exit status 2; a trace's calls.csv
    stands for its directory."""
    tool = str(Path(options.bin) / "papshim-report")
    work = trace_dir(options, "report-errors")
    work.mkdir()
    (work / "empty").mkdir()
    (work / "source").mkdir()
    (work / "source" / "main.c").write_text("int main(void) { return 0; }\n")
    (work / "notes.txt").write_text("notes\n")
    missing = work / "nonexist"
    expected = [(missing, f"papshim-report: {missing}: no such directory"),
                (work / "empty", f"papshim-report: {work / 'empty'} is not a papshim trace "
                                 f"(no calls.csv, meta.txt or spill files)"),
                (work / "source", f"papshim-report: {work / 'source'} is not a papshim trace "
                                  f"(no calls.csv, meta.txt or spill files)"),
                (work / "notes.txt", f"papshim-report: {work / 'notes.txt'} is not a directory: give the trace "
                                     f"directory (PAPSHIM_TRACE_DIR)")]
    for given, line in expected:
        run = execute([tool, str(given), "--no-plots"])
        if run.returncode != 2 or run.stderr.splitlines() != [line]:
            raise CheckFailed(f"expected exit status 2 and the one line '{line}'\n{run.describe()}")
        print(f"  {line}")
    # A trace's calls.csv means its directory.
    trace = work / "trace"
    example = [str(Path(options.bin) / "imbalance"), "--iterations", "1", "--count", "4"]
    expect_success(execute(launcher.command(2, example, launcher.shim_env(mode="profile", trace_dir=trace))))
    run = execute([tool, str(trace / "calls.csv"), "--no-plots"])
    if run.returncode != 0 or not run.stdout.startswith(f"papshim PAP report: {trace}\n"):
        raise CheckFailed(f"papshim-report DIR/calls.csv should report on DIR\n{run.describe()}")
    # A folder with only a running job's lock: the recovery's word on it.
    held = work / "held"
    held.mkdir()
    (held / "papshim.lock").write_text(f"host={socket.gethostname()}\npid={os.getpid()}\nstarted=now\n")
    run = execute([tool, str(held), "--no-plots"])
    if run.returncode != 2 or len(run.stderr.splitlines()) != 1 or "still runs" not in run.stderr:
        raise CheckFailed(f"expected one line saying the job that holds {held} still runs\n{run.describe()}")
    print(f"papshim-report: errors in one line each; DIR/calls.csv reports on DIR; {run.stderr.strip()}")


def case_type_sizes(options, launcher):
    """Predefined and derived datatypes, derived ones freed and made again: every record's size."""
    np = 3
    directory = trace_dir(options, "type-sizes")
    program = [options.program]
    run = execute(launcher.command(np, program, launcher.shim_env(mode="profile", trace_dir=directory)))
    if run.returncode != 0:
        raise CheckFailed(f"the run failed\n{run.describe()}")
    expected = [int(line.split()[1]) for line in run.stdout.splitlines() if line.startswith("bytes ")]
    rows = read_trace(directory, options.docs)
    for rank in range(np):
        traced = [int(row["bytes"]) for row in sorted((row for row in rows if int(row["rank"]) == rank),
                                                      key=lambda row: int(row["seq"]))]
        if traced != expected:
            raise CheckFailed(f"rank {rank}: calls.csv bytes {traced}\nthe program's sizes {expected}")
    print(f"{len(expected)} calls on {np} ranks: every record has the call's true size")


CASES = {"equivalence": case_equivalence, "abort": case_abort, "profile": case_profile, "invalid": case_invalid,
         "unwritable-trace": case_unwritable_trace, "fortran": case_fortran, "python": case_python,
         "papshim-run": case_launcher, "bench": case_bench,
         "type-sizes": case_type_sizes, "claimed-trace": case_claimed_trace, "trace-dir": case_trace_dir,
         "report-errors": case_report_errors}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--mpi", required=True, choices=("openmpi", "mpich"))
    parser.add_argument("--mpiexec", required=True, help="launcher and its flags, one string")
    parser.add_argument("--shim", required=True, help="libpapshim.so")
    parser.add_argument("--bin", required=True, help="folder of the examples, papshim-run and papshim-info")
    parser.add_argument("--work", required=True, help="scratch folder for traces")
    parser.add_argument("--docs", required=True, help="the docs folder (trace-format.md)")
    parser.add_argument("--np", type=int, default=4)
    parser.add_argument("--algorithms", default="", help="comma-separated allgather algorithms (default: all)")
    parser.add_argument("--program", default="", help="abort and type-sizes cases: the C program to run")
    parser.add_argument("--f08", action="store_true", help="fortran case: the use mpi_f08 example was built too")
    parser.add_argument("--fortran-program", default="", help="abort case: the Fortran program that aborts")
    parser.add_argument("--fortran-f08-program", default="", help="abort case: the same through use mpi_f08")
    options = parser.parse_args()
    try:
        CASES[options.case](options, Launcher(options))
    except CheckFailed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
