#!/usr/bin/python3
"""LAMMPS (Debian's lmp, built on Open MPI) under papshim: honest call-site names, same physics.

A short Lennard-Jones melt (examples/lammps/in.lj-melt) on 4 ranks:
  1. natively, twice: the plain input (Allreduce and Reduce only) and with recursive-bisection
     balancing (adds MPI_Allgather and user-op Allreduce calls);
  2. under profile mode: the thermo output equals the native run's bit for bit (profile mode
     forwards every call), the trace has the Allreduce sites, and every name without debug
     information is checked against the library's own symbol table (nm): "symbol+0xOFF" only
     inside that symbol, "?" where no symbol holds the site;
  3. under dispatch, once per papshim algorithm (ALGORITHMS below), with the balanced input
     (it calls Allgather, Allreduce and Reduce): the trace says the algorithm ran, and the
     thermo output equals the native run's to the digits that summation order may change
     (THERMO_RELATIVE_TOLERANCE).
Exit status 77 (CTest: skipped) with the reason when lmp is missing or not built on Open MPI.
"""
import argparse
import csv
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mpi" / "integration"))
import integration as common  # noqa: E402  (Launcher, execute, read_trace, CheckFailed)

SKIP = 77
NP = 4
# Small enough for 2 cores: 864 atoms, 100 steps, a thermo line (and a rebalance) every 10.
LJ_SIZE = ["-var", "cells", "6", "-var", "steps", "100", "-var", "every", "10"]

# papshim's own algorithms per collective, each run under dispatch. One dispatch run per
# name, with that name set for every collective that lists it (so "ring" runs Allgather and
# Allreduce as rings). A new algorithm is one more name in its collective's list; reductions
# may change the last digits, which THERMO_RELATIVE_TOLERANCE allows. The lists hold every
# algorithm papshim-info --algorithms names (checked below, so a new one is not forgotten);
# the arrival-aware ones run their balanced or reactive form wherever no plan exists yet.
ALGORITHMS = {
    "allgather": ["auto", "sparbit", "ring", "bruck", "recursive_doubling", "neighbor_exchange", "gather_bcast",
                  "bdr", "bslb"],
    "allgatherv": ["auto", "sparbit", "ring", "bruck", "recursive_doubling", "neighbor_exchange", "gather_bcast",
                   "bdr", "bslb"],
    "allreduce": ["auto", "recursive_doubling", "rabenseifner", "ring", "dynamic_leader", "symmetric_shm",
                  "arrival_chain", "hierarchical", "clairvoyant", "clairvoyant_bcast", "predicted_chain",
                  "predicted_scatter"],
    "reduce": ["auto", "binomial", "pipelined_binomial", "rabenseifner", "dynamic_leader", "arrival_chain", "clairvoyant",
               "predicted_chain"],
}

# What an algorithm hands a call to by its own documented rule, besides native, per collective:
# dynamic_leader's shared-memory slots take predefined types up to PAPSHIM_SHM_SLOT bytes, and
# larger vectors or derived types (RCB's cut search) go to the same family's algorithm for
# them: hierarchical (Allreduce), arrival_chain (Reduce); symmetric_shm's cells take up to 1 KiB,
# and the rest goes to hierarchical too.
HANDS_OVER = {("allreduce", "dynamic_leader"): {"hierarchical"}, ("reduce", "dynamic_leader"): {"arrival_chain"},
              ("allreduce", "symmetric_shm"): {"hierarchical"}}

# Thermo columns Temp, E_pair, TotEng, Press are global sums (MPI_Allreduce, MPI_SUM, of each
# rank's partial sum) printed with 15 significant digits. Another summation order changes a
# sum by a few units in its last bit; natively, Open MPI's six Allreduce algorithms and
# repeated runs of the balanced input (whose per-rank atom order varies from run to run)
# differ by one unit in the 15th digit of TotEng and Press (relative <= 5e-15), and the
# trajectory hardly feeds on these sums (velocity create scales by one of them, once).
# 1e-12 keeps three digits of margin and still catches any wrong contribution. Step and
# E_mol (0 for atoms) must match exactly.
THERMO_RELATIVE_TOLERANCE = 1e-12
EXACT_COLUMNS = ("Step", "E_mol")


class Skipped(Exception):
    pass


def find_lammps():
    """lmp's path and its libraries by basename; Skipped if it is absent or not on Open MPI."""
    lmp = shutil.which("lmp")
    if lmp is None:
        raise Skipped("lmp not found on PATH: install Debian's LAMMPS (apt-get install lammps); "
                      ".ci/run does so on CI machines")
    listing = subprocess.run(["ldd", lmp], capture_output=True, text=True, check=False).stdout
    libraries = {Path(lmp).name: lmp}
    for line in listing.splitlines():
        name, _, rest = line.strip().partition(" => ")
        if rest.startswith("/"):
            libraries[name] = rest.split()[0]
    if "libmpi.so.40" not in libraries:
        raise Skipped(f"{lmp} is not built on Open MPI 4 (no libmpi.so.40 in ldd): papshim's Open MPI "
                      "build cannot be preloaded into it")
    return lmp, libraries


def thermo(run):
    """The thermo table: {column: [values per printed step]}, between 'Step ...' and 'Loop time'."""
    lines = run.stdout.splitlines()
    try:
        start = next(i for i, text in enumerate(lines) if text.split()[:1] == ["Step"])
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("Loop time"))
    except StopIteration:
        raise common.CheckFailed(f"no thermo table in the output\n{run.describe()}") from None
    columns = lines[start].split()
    table = {name: [] for name in columns}
    for text in lines[start + 1:end]:
        for name, value in zip(columns, text.split(), strict=True):
            table[name].append(float(value))
    if not table["Step"]:
        raise common.CheckFailed(f"the thermo table is empty\n{run.describe()}")
    return table


def compare_thermo(reference, run, what, tolerance):
    expected, actual = thermo(reference), thermo(run)
    if list(expected) != list(actual) or expected["Step"] != actual["Step"]:
        raise common.CheckFailed(f"{what}: thermo columns or steps differ from the native run\n"
                                 f"native: {list(expected)} {expected['Step']}\nshim: {list(actual)} {actual['Step']}")
    worst = 0.0
    for name, values in expected.items():
        for step, a, b in zip(expected["Step"], values, actual[name]):
            if name in EXACT_COLUMNS or tolerance == 0:
                ok = a == b
            else:
                difference = abs(a - b) / max(abs(a), abs(b), 1e-300)
                worst = max(worst, difference)
                ok = difference <= tolerance
            if not ok:
                raise common.CheckFailed(f"{what}: {name} at step {step:.0f} is {b!r}, native {a!r} "
                                         f"(allowed: {'exact' if name in EXACT_COLUMNS or tolerance == 0 else tolerance})\n"
                                         f"{run.describe()}")
    print(f"  {what}: thermo matches native ({len(expected['Step'])} lines; largest relative difference {worst:.1e})")


def check_algorithm_lists(info):
    """ALGORITHMS names every algorithm of papshim's (but native), so each runs LAMMPS here."""
    listing = subprocess.run([info, "--algorithms"], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        collective, _, names = line.partition("\t")
        missing = set(names.split(", ")) - {"native"} - set(ALGORITHMS.get(collective, []))
        if missing:
            raise common.CheckFailed(f"papshim has {collective} algorithms this test does not run: {sorted(missing)}; "
                                     f"add them to ALGORITHMS in {__file__}")


def expect_lammps_success(run):
    if run.returncode != 0 or "Total wall time" not in run.stdout:
        raise common.CheckFailed(f"LAMMPS failed\n{run.describe()}")
    return run


def symbol_tables(path):
    """[(start, size, demangled name)] of the defined function symbols nm sees in path."""
    symbols = []
    for dynamic in (["-D"], []):
        listing = subprocess.run(["nm", "-C", "-S", "--defined-only", *dynamic, path],
                                 capture_output=True, text=True, check=False).stdout
        for line in listing.splitlines():
            fields = line.split(" ", 3)
            if len(fields) == 4 and fields[2] in "TtWwi":
                symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    return symbols


def check_site_names(rows, libraries):
    """Names without debug information are honest: 'symbol+0xOFF' inside it, '?' otherwise."""
    sites = {(row["callsite"], row["function"], row["location"]) for row in rows}
    tables, checked, unnamed = {}, 0, 0
    for key, function, location in sorted(sites):
        module, _, offset_text = key.partition(";")[0].rpartition("+")
        if location or module not in libraries:
            continue  # debug information (addr2line's name and line) or a module not of lmp's
        if module not in tables:
            tables[module] = symbol_tables(libraries[module])
        offset = int(offset_text, 16)  # the return address; the call instruction is before it
        holders = [(start, name) for start, size, name in tables[module] if start <= offset - 1 < start + size]
        expected = {f"{name}+{offset - start:#x}" for start, name in holders} or {"?"}
        if function not in expected:
            raise common.CheckFailed(f"call site {key} is named '{function}'; its symbol table says "
                                     f"{sorted(expected)}")
        checked += 1
        unnamed += function == "?"
    if checked == 0:
        raise common.CheckFailed(f"no call site in lmp's modules to check: {sorted(sites)[:5]}")
    print(f"  {checked} call sites checked against nm: {checked - unnamed} inside their symbol, "
          f"{unnamed} in no symbol ('?')")


def run_lammps(launcher, lmp, script, balance, env):
    command = launcher.command(NP, [lmp, "-in", script, *LJ_SIZE, "-var", "balance", balance,
                                    "-log", "none", "-nocite"], env)
    return expect_lammps_success(common.execute(command))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpiexec", required=True, help="launcher and its flags, one string")
    parser.add_argument("--shim", required=True, help="libpapshim.so (an Open MPI build)")
    parser.add_argument("--input", required=True, help="examples/lammps/in.lj-melt")
    parser.add_argument("--work", required=True, help="scratch folder for traces")
    parser.add_argument("--docs", required=True, help="the docs folder (trace-format.md)")
    parser.add_argument("--info", required=True, help="papshim-info, for the algorithm names")
    options = parser.parse_args()
    options.mpi = "openmpi"
    try:
        lmp, libraries = find_lammps()
    except Skipped as reason:
        print(f"SKIPPED: {reason}")
        return SKIP
    launcher = common.Launcher(options)
    try:
        check_algorithm_lists(options.info)
        native = {balance: run_lammps(launcher, lmp, options.input, balance, {}) for balance in ("none", "rcb")}

        directory = common.trace_dir(options, "lammps-profile")
        run = run_lammps(launcher, lmp, options.input, "none", launcher.shim_env(mode="profile", trace_dir=directory))
        compare_thermo(native["none"], run, "profile", tolerance=0)
        rows = common.read_trace(directory, options.docs)
        allreduce_sites = {row["callsite"] for row in rows if row["collective"] == "allreduce"}
        functions = {row["function"] for row in rows}
        print(f"  profile: {len(rows)} rows, {len(allreduce_sites)} Allreduce call sites")
        if not any(name.startswith("LAMMPS_NS::ComputeTemp::compute_scalar()+0x") for name in functions):
            raise common.CheckFailed(f"no Allreduce site in ComputeTemp::compute_scalar (thermo's temperature): "
                                     f"{sorted(functions)}")
        check_site_names(rows, libraries)

        for name in dict.fromkeys(n for names in ALGORITHMS.values() for n in names):
            collectives = [c for c, names in ALGORITHMS.items() if name in names]
            directory = common.trace_dir(options, f"lammps-{name}")
            env = launcher.shim_env(mode="dispatch", trace_dir=directory, **dict.fromkeys(collectives, name))
            run = run_lammps(launcher, lmp, options.input, "rcb", env)
            compare_thermo(native["rcb"], run, f"dispatch {'/'.join(collectives)}={name}", THERMO_RELATIVE_TOLERANCE)
            ran = Counter((row["collective"], row["algorithm"]) for row in common.read_trace(
                directory, options.docs, expect_files=("calls.csv",)) if row["collective"] in collectives)
            print(f"    ran: {dict(ran)}")
            # Each collective the input calls ran the named algorithm (native only where papshim
            # forwards by its rules, e.g. arguments an algorithm cannot take).
            called = {collective for collective, _ in ran}
            if not called:
                raise common.CheckFailed(f"the input made no {'/'.join(collectives)} call: the run under "
                                         f"{name} tested nothing")
            for collective in sorted(called):
                algorithms = {algorithm for c, algorithm in ran if c == collective}
                allowed = {name, "native"} | HANDS_OVER.get((collective, name), set())
                if name != "auto" and (name not in algorithms or algorithms - allowed):
                    raise common.CheckFailed(f"PAPSHIM_{collective.upper()}={name}, but its calls ran {sorted(algorithms)}")
    except common.CheckFailed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
