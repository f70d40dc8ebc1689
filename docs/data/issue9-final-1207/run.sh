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
# MPICH across the emulated network, p = 4 (its ranks busy-poll on the 2 cores; as matrix.sh's
# network runs otherwise).
for c in allreduce reduce; do
  out=mpich-net-np4-$c-r1
  algs=native,binomial,pipelined_binomial,arrival_chain,predicted_chain,clairvoyant,auto extra="--root 0"
  [ $c = allreduce ] && algs=native,recursive_doubling,ring,arrival_chain,predicted_chain,predicted_scatter,clairvoyant,clairvoyant_bcast,auto extra=
  echo "== $out $(date +%T)"
  "$BM/bin/papshim-run" --emulate-network 1gbit -- mpiexec.mpich -n 4 "$BM/bin/papshim-bench" --suite sweep \
    --bytes 64K,128K,256K,512K,1M,4M --patterns one-late,staircase,uniform --delays 10tau --iterations 20 \
    --warmup 8 --collective $c $extra --algorithms $algs --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== all done $(date +%T)"
