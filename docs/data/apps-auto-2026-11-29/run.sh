#!/bin/bash
# `auto` for all four collectives against native (papshim-run --mode off) and profile mode,
# LAMMPS and Quantum ESPRESSO over the emulated 1 Gbit/s network, one rank per node.
# Run from the repository root after build/openmpi is built; needs root (network namespaces).
# Output files carry the commit measured: run.sh [SUFFIX] (default: the current commit).
set -euo pipefail
out=docs/data/apps-auto-2026-11-29
tag=${1:-$(git rev-parse --short HEAD)}
A=examples/apps/app_timing.py
wrap="$PWD/build/openmpi/bin/papshim-run --emulate-network 1gbit"
auto=ALLGATHER=auto,ALLGATHERV=auto,ALLREDUCE=auto,REDUCE=auto
for np in 4 8; do
  $A --wrap "$wrap" --mpiexec "mpiexec.openmpi --allow-run-as-root" --np $np --reps 5 \
     --app "lmp -in examples/lammps/in.lj-melt -var cells 8 -var steps 300 -var every 10 -var balance {variant} -log none" \
     --timer "Loop time of ([0-9.eE+-]+)" --result "^ +300 .*$" \
     --config native:none --config profile:none:MODE=profile,TRACE_DIR=/tmp/apps-auto-trace --config auto:none:$auto \
     --config native-rcb:rcb --config profile-rcb:rcb:MODE=profile,TRACE_DIR=/tmp/apps-auto-trace --config auto-rcb:rcb:$auto \
     --csv $out/lammps-np$np-$tag.csv > $out/lammps-np$np-$tag.md
done
mkdir -p /tmp/qe-auto && cp -f examples/qe/si8.scf.in /tmp/qe-auto/
$A --cwd /tmp/qe-auto --wrap "$wrap" --mpiexec "mpiexec.openmpi --allow-run-as-root" --np 4 --reps 3 \
   --app "pw.x -in si8.scf.in" --result "^!.*total energy.*$" \
   --timer "PWSCF *:.*CPU +(?:(?P<minutes>[0-9]+)m *)?(?P<seconds>[0-9.]+)s WALL" \
   --config native:si8 --config auto:si8:$auto \
   --csv $out/qe-np4-$tag.csv > $out/qe-np4-$tag.md
