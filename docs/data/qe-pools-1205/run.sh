#!/bin/bash
# Quantum ESPRESSO with k-point pools over the emulated 1 Gbit/s network, one rank per node:
# examples/qe/si8-pools-md.in (12 MD steps, 5 k-points on 4 pools), native (papshim-run
# --mode off) against `auto` for all four collectives; its pools sum the charge density in
# 256 KiB Allreduce calls, where `auto` may plan Clairvoyant's Allreduce since 2026-12-05.
# Run from the repository root after build/openmpi is built; needs root.
set -euo pipefail
out=docs/data/qe-pools-1205
tag=${1:-$(git rev-parse --short HEAD)}
wrap="$PWD/build/openmpi/bin/papshim-run --emulate-network 1gbit"
auto=ALLGATHER=auto,ALLGATHERV=auto,ALLREDUCE=auto,REDUCE=auto
mkdir -p /tmp/qe-pools && cp -f examples/qe/si8-pools-md.in /tmp/qe-pools/
examples/apps/app_timing.py --cwd /tmp/qe-pools --wrap "$wrap" --mpiexec "mpiexec.openmpi --allow-run-as-root" \
   --np 4 --reps ${REPS:-3} --app "pw.x -nk 4 -in si8-pools-md.in" \
   --result '^!.*total energy.*$(?![\s\S]*^!.*total energy)' \
   --timer "PWSCF *:.*CPU +(?:(?P<minutes>[0-9]+)m *)?(?P<seconds>[0-9.]+)s WALL" \
   --config native:md --config auto:md:$auto \
   --csv $out/qe-pools-np4-$tag.csv > $out/qe-pools-np4-$tag.md
