#!/bin/bash
# Issue 9's whole matrix at cdd546f (the code of stop 89): ../issue9-matrix-1206/matrix.sh
# run on this checkout's builds, two network rounds and one on shared memory, then the
# network on MPICH at p = 4 (one round). Usage: run.sh (from this directory; about 80 min).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
export B=${B:-$root/build/openmpi} BM=${BM:-$root/build/mpich}
matrix=$here/../issue9-matrix-1206/matrix.sh
cd "$here" || exit 1
bash "$matrix" 1 net
bash "$matrix" 1 shm
bash "$matrix" 2 net
# MPICH across the emulated network, p = 4 (its ranks busy-poll on the 2 cores).
bash "$matrix" 1 mpich-net
echo "== all done $(date +%T)"
