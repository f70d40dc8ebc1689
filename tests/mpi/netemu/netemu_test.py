#!/usr/bin/python3
"""Tests of `papshim-run --emulate-network` (one subcommand per CTest test).

The emulation needs root and the right to create namespaces; where the machine lacks either,
the tests that need them exit with SKIP_CODE and say why. Every check names the command to
rerun by hand. Timing is only ever checked against a physical lower bound.
"""
import argparse
import csv
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP_CODE = 77
RUN_TIMEOUT_S = 150
GONE_TIMEOUT_S = 60  # how long a killed job may take to vanish before the test calls it a leak


class CheckFailed(Exception):
    pass


class Skip(Exception):
    pass


def describe(command, done):
    return (f"command: {shlex.join(command)}\nexit status: {done.returncode}\n"
            f"--- stdout ---\n{done.stdout[-4000:]}--- stderr ---\n{done.stderr[-4000:]}")


def clean_environment():
    """No PAPSHIM_ variable or preload leaks in from the caller."""
    return {name: value for name, value in os.environ.items()
            if not name.startswith("PAPSHIM_") and name != "LD_PRELOAD"}


def execute(command, env=None, timeout_s=RUN_TIMEOUT_S):
    print(f"$ {shlex.join(command)}", flush=True)
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout_s,
                              env=env or clean_environment(), check=False)
    except subprocess.TimeoutExpired as timeout:
        raise CheckFailed(f"timed out after {timeout_s} s: {shlex.join(command)}\n"
                          f"stdout: {timeout.stdout}\nstderr: {timeout.stderr}") from timeout


def refusal(options):
    """papshim-run's one line if it refuses to emulate a network for this MPI at all (MPICH
    before 4), else None."""
    command = [str(Path(options.bin) / "papshim-run"), "--dry-run", "--emulate-network", "1gbit",
               "--"] + shlex.split(options.mpiexec) + ["-n", "2", options.probe]
    done = subprocess.run(command, capture_output=True, text=True, env=clean_environment(), check=False)
    line = done.stderr.strip()
    return line if done.returncode != 0 and "cannot run MPICH" in line else None


def require_emulation(options):
    """Skips the test unless this machine can build an emulated network for this MPI."""
    refused = refusal(options)
    if refused:
        raise Skip(refused)
    if os.geteuid() != 0:
        raise Skip("the emulated network needs root (network namespaces)")
    missing = [tool for tool in ("unshare", "setpriv", "ip", "tc") if not shutil.which(tool)]
    if missing:
        raise Skip(f"{', '.join(missing)} not installed (packages util-linux, iproute2)")
    probe = subprocess.run(["unshare", "--net", "--mount", "--pid", "--fork", "true"],
                           capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        raise Skip(f"root cannot create namespaces here: {probe.stderr.strip()}")


# --- what a job leaves behind ----------------------------------------------------------------

def processes():
    """{pid: (parent pid, start time, network namespace inode, command line)} of every process."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            netns = os.stat(entry / "ns" / "net").st_ino
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
        table[int(entry.name)] = (int(fields[1]), fields[19], netns, command)
    return table


def descendants(root):
    """The (pid, start time) of root and every process below it, and their network namespaces."""
    table = processes()
    found, frontier = set(), [root]
    while frontier:
        pid = frontier.pop()
        if pid in table:
            found.add((pid, table[pid][1]))
            frontier += [child for child, row in table.items() if row[0] == pid]
    own = os.stat("/proc/self/ns/net").st_ino
    namespaces = {table[pid][2] for pid, _ in found if pid in table} - {own}
    return found, namespaces


def host_network():
    """The host namespace's interfaces and named namespaces, to compare before and after."""
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True,
                           check=False).stdout
    names = sorted(re.findall(r"^\d+: ([^:@]+)", links, flags=re.MULTILINE))
    netns_dir = Path("/run/netns")
    named = sorted(p.name for p in netns_dir.iterdir()) if netns_dir.is_dir() else []
    return names, named


def expect_gone(job, namespaces, what):
    """Polls until none of the job's processes is alive and no process is in its namespaces."""
    deadline = time.monotonic() + GONE_TIMEOUT_S
    while True:
        table = processes()
        alive = [pid for pid, start in job if pid in table and table[pid][1] == start]
        inside = [pid for pid, row in table.items() if row[2] in namespaces]
        if not alive and not inside:
            return
        if time.monotonic() > deadline:
            rows = "\n".join(f"  {pid}: {table[pid][3]}" for pid in sorted(set(alive + inside))
                             if pid in table)
            raise CheckFailed(f"{what}: processes left {GONE_TIMEOUT_S} s after the job ended:\n{rows}")
        time.sleep(0.2)


def expect_host_unchanged(before, what):
    after = host_network()
    if after != before:
        raise CheckFailed(f"{what}: the host's network changed\nbefore: {before}\nafter:  {after}")


# --- runs ---------------------------------------------------------------------------------------

class Job:
    def __init__(self, options):
        self.options = options
        self.run = str(Path(options.bin) / "papshim-run")
        self.mpiexec = shlex.split(options.mpiexec)

    def command(self, flags, np, program):
        return [self.run] + flags + ["--"] + self.mpiexec + ["-n", str(np)] + program


def probe_output(text, command, done):
    """The probe's per-rank namespaces and its transfer line."""
    netns = {int(rank): int(inode) for rank, inode in re.findall(r"^rank (\d+) netns (\d+)$", text, re.M)}
    match = re.search(r"^transfer from 0 to (\d+) bytes (\d+) seconds ([0-9.]+) wire_tx_bytes (\d+)$",
                      text, re.M)
    if not netns or not match:
        raise CheckFailed(f"the probe's output lacks its 'rank ... netns' or 'transfer' lines\n"
                          f"{describe(command, done)}")
    peer, size, seconds, wire = int(match[1]), int(match[2]), float(match[3]), int(match[4])
    return netns, peer, size, seconds, wire


def expect_nodes(netns, per_node, command, done):
    """Ranks of one emulated node share a namespace; different nodes never do, nor the host."""
    own = os.stat("/proc/self/ns/net").st_ino
    for rank, inode in netns.items():
        for other, other_inode in netns.items():
            same_node = rank // per_node == other // per_node
            if (inode == other_inode) != same_node:
                raise CheckFailed(f"ranks {rank} and {other} {'should' if same_node else 'should not'} "
                                  f"share a network namespace: {netns}\n{describe(command, done)}")
        if inode == own:
            raise CheckFailed(f"rank {rank} runs in the host's network namespace\n{describe(command, done)}")


def expect_on_the_wire(size, wire, command, done):
    """The message between two nodes left through the node's link: shared memory (or any path
    around the emulated network) would leave the interface counters idle."""
    if wire < size:
        raise CheckFailed(f"only {wire} bytes left rank 0's node for a {size}-byte message: the "
                          f"transfer bypassed the emulated network\n{describe(command, done)}")


def case_shaped(options):
    """A large message between two nodes takes at least the time the link rate implies."""
    require_emulation(options)
    rate_bits, size = 100e6, 4 << 20
    # tbf lets one bucket (netemu_burst_bytes: 64 KiB at this rate) through at line speed at
    # each of the link's two ends; everything beyond is held to the rate.
    bound = (size - 2 * 65536) * 8 / rate_bits
    job = Job(options)
    # Each rank shows its node's route to the switch first: TCP there must be CUBIC, whatever
    # the host's default (docs/emulated-network.md).
    show_route = 'ip route show 10.99.0.0/24 | sed "s/^/route: /"; exec "$0" "$@"'
    command = job.command(["--emulate-network", "100mbit"], 2, ["sh", "-c", show_route, options.probe, str(size)])
    before = host_network()
    done = execute(command)
    if done.returncode != 0:
        raise CheckFailed(f"the emulated run failed\n{describe(command, done)}")
    netns, peer, got_size, seconds, wire = probe_output(done.stdout, command, done)
    expect_nodes(netns, 1, command, done)
    expect_on_the_wire(got_size, wire, command, done)
    routes = re.findall(r"^route: (.*)$", done.stdout, re.M)
    if len(routes) != 2 or not all(re.search(r"\bcongctl cubic\b", route) for route in routes):
        raise CheckFailed(f"the nodes' routes to the switch do not set congctl cubic: {routes}\n"
                          f"{describe(command, done)}")
    if seconds < bound:
        raise CheckFailed(f"{got_size} bytes from rank 0 to {peer} took {seconds:.3f} s, less than "
                          f"the {bound:.3f} s that 100 Mbit/s allows: the link is not shaped\n"
                          f"{describe(command, done)}")
    expect_host_unchanged(before, "shaped run")
    print(f"shaped: {got_size} bytes in {seconds:.3f} s (at least {bound:.3f} s at 100 Mbit/s), "
          f"{wire} bytes on the wire, ranks in namespaces {sorted(set(netns.values()))}, TCP cubic")


def case_nodes(options, work):
    """--ranks-per-node 2 at np 4: two ranks per namespace, TCP between nodes, and the job's
    PAPSHIM_NODE_SIZE and PAPSHIM_NETWORK reach the ranks (the trace's meta.txt)."""
    require_emulation(options)
    size = 1 << 20
    trace = Path(work) / "trace-nodes"
    shutil.rmtree(trace, ignore_errors=True)
    stats = Path(work) / "network-stats.csv"
    stats.unlink(missing_ok=True)
    job = Job(options)
    command = job.command(["--emulate-network", "1gbit", "--ranks-per-node", "2", "--mode", "profile",
                           "--trace", str(trace), "--network-stats", str(stats)], 4, [options.probe, str(size)])
    done = execute(command)
    if done.returncode != 0:
        raise CheckFailed(f"the emulated run failed\n{describe(command, done)}")
    netns, peer, got_size, _, wire = probe_output(done.stdout, command, done)
    if peer != 2:
        raise CheckFailed(f"the probe sent to rank {peer}, not 2: PAPSHIM_NODE_SIZE=2 did not reach "
                          f"the ranks\n{describe(command, done)}")
    expect_nodes(netns, 2, command, done)
    expect_on_the_wire(got_size, wire, command, done)
    meta = (trace / "meta.txt").read_text() if (trace / "meta.txt").is_file() else ""
    expected = ["node_size=2", "network=emulated switched network: 2 nodes x 2 ranks, "
                "a full-duplex 1gbit link per node (tbf), TCP only (cubic), no added latency"]
    missing = [line for line in expected if line not in meta.splitlines()]
    if missing:
        raise CheckFailed(f"{trace}/meta.txt lacks {missing}:\n{meta}\n{describe(command, done)}")
    sent = expect_network_stats(stats, 2, got_size, command, done)
    print(f"nodes: namespaces {netns}, {wire} bytes on the wire for {got_size}, meta.txt says "
          f"the network and node size, --network-stats saw {sent} bytes leave node n0")


def expect_network_stats(stats, nodes, size, command, done):
    """--network-stats wrote one row of non-negative integers per node, and the probe's message
    left node n0 through its link; returns the bytes that did."""
    columns = ["node", "bytes_to_node", "dropped_to_node", "bytes_from_node", "dropped_from_node",
               "tcp_retransmitted_segments", "tcp_timeouts", "tcp_spurious_timeouts", "tcp_loss_probes",
               "tcp_fast_retransmits", "tcp_dsacks", "tcp_receiver_drops", "tcp_zero_windows"]
    rows = []
    if stats.is_file():
        with open(stats, newline="") as table:
            rows = list(csv.DictReader(table))
    if (not rows or list(rows[0]) != columns or [row["node"] for row in rows] != [f"n{k}" for k in range(nodes)]
            or not all(row[name].isdigit() for row in rows for name in columns[1:])):
        raise CheckFailed(f"{stats} is not {nodes} rows of {columns}:\n"
                          f"{stats.read_text() if stats.is_file() else '(missing)'}\n{describe(command, done)}")
    sent = int(rows[0]["bytes_from_node"])
    if sent < size:
        raise CheckFailed(f"{stats} counts {sent} bytes from n0 for a {size}-byte message\n{describe(command, done)}")
    return sent


def shadow_path(work, without):
    """A PATH with every command of the current one but those named in without."""
    directory = Path(work) / ("path-without-" + "-".join(without))
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            target = directory / entry.name
            if entry.name not in without and not target.exists() and not target.is_symlink():
                target.symlink_to(entry.path)
    return str(directory)


def case_bad_arguments(options, work):
    """Each bad invocation: a non-zero exit, one 'papshim-run:' line, and nothing started or
    left behind. Runs without root too (then 'not root' is the plain invocation)."""
    job = Job(options)
    token = f"netemu-bad-{os.getpid()}"  # any process started by a case would carry it
    program = [options.probe, token]
    cases = [
        ("unknown rate", ["--emulate-network", "fast"], 2, program, "invalid --emulate-network"),
        ("bytes per second", ["--emulate-network", "1gbps"], 2, program, "invalid --emulate-network"),
        ("zero ranks per node", ["--emulate-network", "1gbit", "--ranks-per-node", "0"], 2, program,
         "invalid --ranks-per-node"),
        ("ranks do not fill the nodes", ["--emulate-network", "1gbit", "--ranks-per-node", "2"], 3,
         program, "do not fill nodes"),
        ("more nodes than the subnet holds", ["--emulate-network", "1gbit"], 254, program,
         "do not fit"),
        ("ranks per node without emulation", ["--ranks-per-node", "2"], 2, program,
         "--ranks-per-node needs --emulate-network"),
        ("node size set twice", ["--emulate-network", "1gbit", "--node-size", "2"], 2, program,
         "sets PAPSHIM_NODE_SIZE itself"),
        ("network stats without emulation", ["--network-stats", str(Path(work) / "stats.csv")], 2, program,
         "--network-stats needs --emulate-network"),
        ("network stats in a missing directory",
         ["--emulate-network", "1gbit", "--network-stats", str(Path(work) / "missing" / "stats.csv")], 2,
         program, "cannot write --network-stats file"),
    ]
    commands = [(what, job.command(flags, np, prog), expect) for what, flags, np, prog, expect in cases]
    host_option = ["--host", "localhost"] if options.mpi == "openmpi" else ["-hosts", "localhost"]
    commands += [
        ("a launcher option that would bypass the emulation",
         [job.run, "--emulate-network", "1gbit", "--"] + job.mpiexec[:1] + host_option + ["-n", "2"]
         + job.mpiexec[1:] + program, "cannot be combined with the launcher option"),
        ("no rank count", [job.run, "--emulate-network", "1gbit", "--"] + job.mpiexec + program,
         "cannot tell the rank count"),
        ("not an MPI launcher", [job.run, "--emulate-network", "1gbit", "--", "true", token],
         "not a launcher papshim-run knows"),
    ]
    environments = {}
    valid = job.command(["--emulate-network", "1gbit"], 2, program)
    if refusal(options):
        # Nothing gets past this MPI's refusal, so the machine checks cannot be reached.
        commands.append(("this MPI", valid, "cannot run MPICH"))
    else:
        environments["iproute2 missing"] = dict(clean_environment(), PATH=shadow_path(work, ["ip", "tc"]))
        commands.append(("iproute2 missing", valid, "(Debian package iproute2), not found on PATH"))
        # The tools are checked before the rights, so "not root" needs them all.
        if not all(shutil.which(tool) for tool in ("unshare", "setpriv", "ip", "tc")):
            print("  (not root: not tried, the tools are missing here)")
        elif os.geteuid() == 0:
            nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
            if execute(nobody + ["test", "-x", job.run]).returncode == 0:
                commands.append(("not root", nobody + valid, "needs root"))
            else:
                # The checkout is private to root (a 0700 temporary directory), so nobody
                # cannot even start papshim-run: root without capabilities instead.
                no_caps = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"]
                commands.append(("root without capabilities", no_caps + valid, "root cannot create namespaces"))
        else:
            commands.append(("not root", valid, "needs root"))

    before = host_network()
    for what, command, expect in commands:
        done = execute(command, environments.get(what))
        lines = done.stderr.strip().splitlines()
        if (done.returncode == 0 or len(lines) != 1 or not lines[0].startswith("papshim-run:")
                or expect not in lines[0]):
            raise CheckFailed(f"{what}: expected a non-zero exit and one 'papshim-run: ...{expect}...' "
                              f"line\n{describe(command, done)}")
        left = [pid for pid, row in processes().items() if token in row[3]]
        if left:
            raise CheckFailed(f"{what}: processes started and left: {left}\n{describe(command, done)}")
        print(f"  {what}: {lines[0]}")
    expect_host_unchanged(before, "bad arguments")
    print(f"bad arguments: {len(commands)} invocations refused with one line, nothing left behind")


def case_terminate(options, work):
    """A job that fails while its network is being built, or is ended by SIGTERM (what a
    batch system sends first) or SIGKILL, leaves no process, namespace or interface behind."""
    require_emulation(options)
    job = Job(options)
    before = host_network()

    # tc failing on the first link: one line naming the command, and the half-built network
    # goes with the job's namespaces.
    fake = Path(work) / "failing-tc"
    fake.mkdir()
    (fake / "tc").write_text("#!/bin/sh\necho 'RTNETLINK answers: Operation not supported' >&2\nexit 2\n")
    (fake / "tc").chmod(0o755)
    token = f"netemu-setup-{os.getpid()}"
    command = job.command(["--emulate-network", "1gbit"], 2, [options.probe, token])
    done = execute(command, dict(clean_environment(), PATH=f"{fake}{os.pathsep}{os.environ['PATH']}"))
    lines = done.stderr.strip().splitlines()
    if done.returncode == 0 or len(lines) != 1 or "cannot set up the emulated network" not in lines[0]:
        raise CheckFailed(f"a failing tc: expected a non-zero exit and one 'cannot set up' line\n"
                          f"{describe(command, done)}")
    left = [pid for pid, row in processes().items() if token in row[3]]
    if left:
        raise CheckFailed(f"a failing tc: processes left: {left}\n{describe(command, done)}")
    expect_host_unchanged(before, "failed setup")
    print(f"  setup fails: {lines[0]}")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        command = job.command(["--emulate-network", "1gbit", "--ranks-per-node", "2"], 4,
                              [options.probe, "0", "600"])
        print(f"$ {shlex.join(command)}   (then {sig.name})", flush=True)
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=clean_environment())
        # Wait until the ranks run (the probe says so), so the whole job exists when it is killed.
        ready = process.stdout.readline()
        if not ready.startswith("rank 0 netns"):
            process.kill()
            raise CheckFailed(f"the long job did not start: {ready!r} {process.communicate()}")
        tree, namespaces = descendants(process.pid)
        if len(namespaces) < 2:
            process.kill()
            raise CheckFailed(f"expected the job in at least two namespaces, found {namespaces}")
        process.send_signal(sig)
        try:
            process.communicate(timeout=GONE_TIMEOUT_S)
        except subprocess.TimeoutExpired as timeout:
            process.kill()
            raise CheckFailed(f"papshim-run did not end {GONE_TIMEOUT_S} s after {sig.name}") from timeout
        expect_gone(tree, namespaces, sig.name)
        print(f"  {sig.name}: exit {process.returncode}, {len(tree)} processes and "
              f"{len(namespaces)} namespaces gone")
    expect_host_unchanged(before, "terminated runs")
    print("terminate: nothing left behind after a failed setup, SIGTERM or SIGKILL")


def case_finalize(options):
    """Short jobs end: MPICH before 4.2 hung in MPI_Finalize over UCX's TCP in five of six such
    4-rank runs until papshim progressed UCX there (interpose/finalize_progress.cpp). Every run
    must end in time; without the fix six runs in a row all ending would be a 1-in-46000 chance.
    Then the same with a program of MPI sessions only (MPI 4), whose end is MPI_Session_finalize."""
    require_emulation(options)
    job = Job(options)
    runs, timeout_s = 6, 30
    for run in range(1, runs + 1):
        command = job.command(["--emulate-network", "1gbit"], 4, [options.probe, "1024"])
        started = time.monotonic()
        done = execute(command, timeout_s=timeout_s)
        if done.returncode != 0:
            raise CheckFailed(f"run {run} of {runs} failed\n{describe(command, done)}")
        probe_output(done.stdout, command, done)
        print(f"run {run}: ended in {time.monotonic() - started:.1f} s")
    # A program of MPI sessions only: MPICH tears down in MPI_Session_finalize.
    sessions, session_runs = 0, 3 if options.sessions_probe else 0
    for run in range(1, session_runs + 1):
        command = job.command(["--emulate-network", "1gbit"], 4, [options.sessions_probe])
        done = execute(command, timeout_s=timeout_s)
        if done.returncode != 0:
            raise CheckFailed(f"sessions run {run} of {session_runs} failed\n{describe(command, done)}")
        if "no sessions" in done.stdout:
            break
        if "sum 6" not in done.stdout:
            raise CheckFailed(f"sessions run {run}: no 'sum 6' line\n{describe(command, done)}")
        sessions += 1
    print(f"finalize: {runs} 4-rank jobs over the emulated network each ended within {timeout_s} s, "
          f"and {sessions} of a program of MPI sessions only")


def case_program(options, work):
    """One of the MPI test programs (--program) over the emulated network: papshim's algorithms,
    its exchanges and helper thread, with TCP between the emulated nodes and, at two ranks per
    node, its node algorithms inside them. The program checks every result against native and
    exits non-zero on any difference or failure."""
    require_emulation(options)
    settings = dict(setting.split("=", 1) for setting in options.set)
    env = clean_environment()
    env.update(settings)
    stats = Path(work) / "network-stats.csv"
    flags = ["--emulate-network", options.rate, "--ranks-per-node", str(options.ranks_per_node),
             "--network-stats", str(stats)]
    command = Job(options).command(flags, options.np, shlex.split(options.program))
    shown = " ".join(f"{name}={value}" for name, value in settings.items())
    done = execute(command, env, timeout_s=options.timeout)
    if done.returncode != 0:
        raise CheckFailed(f"the program failed over the emulated network ({shown or 'no PAPSHIM_ setting'})\n"
                          f"{describe(command, done)}")
    # The job's traffic crossed the emulated links: a row per node, and node n0 sent.
    sent = expect_network_stats(stats, options.np // options.ranks_per_node, 1, command, done)
    print(done.stdout[-3000:], end="")
    print(f"program over the emulated network ({options.np} ranks, {options.ranks_per_node} per node, "
          f"{options.rate}{', ' + shown if shown else ''}): passed; {sent} bytes left node n0")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("case", choices=["shaped", "nodes", "bad-arguments", "terminate", "finalize",
                                         "program"])
    parser.add_argument("--mpi", required=True, choices=["openmpi", "mpich"])
    parser.add_argument("--mpiexec", required=True, help="launcher and its flags, one string")
    parser.add_argument("--bin", required=True, help="the build's bin folder (papshim-run)")
    parser.add_argument("--probe", required=True, help="the netemu_probe program")
    parser.add_argument("--sessions-probe", help="the sessions_probe program (the finalize case)")
    parser.add_argument("--work", required=True, help="a folder for this test's files")
    program = parser.add_argument_group("the program case")
    program.add_argument("--program", help="the MPI program and its arguments, one string")
    program.add_argument("--np", type=int, default=4, help="ranks (default 4)")
    program.add_argument("--ranks-per-node", type=int, default=1, help="ranks per emulated node (default 1)")
    program.add_argument("--rate", default="1gbit", help="link rate (default 1gbit)")
    program.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                         help="an environment variable for the job (repeatable)")
    program.add_argument("--timeout", type=float, default=RUN_TIMEOUT_S,
                         help=f"seconds before the run counts as hung (default {RUN_TIMEOUT_S})")
    options = parser.parse_args()
    if options.case == "program" and not options.program:
        parser.error("the program case needs --program")
    bad = [setting for setting in options.set if "=" not in setting or not setting.split("=", 1)[0]]
    if bad:
        parser.error(f"--set takes NAME=VALUE, not {bad[0]!r}")
    os.makedirs(options.work, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f"{options.case}-", dir=options.work)
    try:
        if options.case == "shaped":
            case_shaped(options)
        elif options.case == "nodes":
            case_nodes(options, work)
        elif options.case == "bad-arguments":
            case_bad_arguments(options, work)
        elif options.case == "program":
            case_program(options, work)
        elif options.case == "finalize":
            case_finalize(options)
        else:
            case_terminate(options, work)
    except Skip as reason:
        print(f"SKIPPED: {reason}")
        return SKIP_CODE
    except CheckFailed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
