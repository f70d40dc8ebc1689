#!/bin/bash
# Issue 9's first target with the last arriver's trust (2026-12-07): the runs of
# ../issue9-first-target-1207/matrix.sh (the Allreduce at 64 KiB-4 MiB, p = 4 and 8, one late
# rank and a staircase of 10tau, emulated 1 Gbit/s, one rank per node, papshim's defaults) into
# /tmp/lt. Usage: matrix.sh ROUND [ompi|mpich]
OUT=/tmp/lt exec bash "$(dirname "$0")/../issue9-first-target-1207/matrix.sh" "$@"
