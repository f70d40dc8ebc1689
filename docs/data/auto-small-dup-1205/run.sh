#!/bin/bash
# auto's small Allreduce at 55c036c/740c8d4, where a duplicate of the world (papshim-bench's
# communicators) has the world's window from its first call: the sweep of
# ../auto-small-1205/run.sh again, run from this directory (it writes here), on shared cores.
# Its first auto point holds the 64 calls auto leaves to MPI before it makes the node view.
# Rounds run: 1 with the default cases, 2 with CASES="openmpi:4 openmpi:8".
# Usage: run.sh ROUND; then python3 ../auto-small-1205/table.py (reads this directory: table.md)
CASES=${CASES:-openmpi:4 openmpi:8 mpich:4} exec ../auto-small-1205/run.sh "$@"
