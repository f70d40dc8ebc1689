#!/bin/bash
# Issue 9's matrix again (round 1 at 023d93a; round 2, the network only, at e663db5, B=an install of it), after the changes since a12c81b (2026-12-01):
# Reduce and Allreduce, 64 KiB-4 MiB, p = 4 and 8, one late rank, staircase and fresh random
# delays of 10tau; emulated 1 Gbit/s with one rank per node (papshim's defaults, as a user
# runs it), shared memory with Open MPI (p = 4, 8) and MPICH (p = 4).
# B, BM: installs of the build for Open MPI and MPICH. Usage: matrix.sh ROUND [net|shm|mpich-net]
# (mpich-net, added 2026-12-07 for ../issue9-final-1207: the network on MPICH at p = 4.)
B=${B:-/tmp/build-023d93a}
BM=${BM:-/tmp/build-023d93a-mpich}
round=${1:-1}
RED=native,binomial,pipelined_binomial,arrival_chain,predicted_chain,clairvoyant,auto
AR=native,recursive_doubling,ring,arrival_chain,predicted_chain,predicted_scatter,clairvoyant,clairvoyant_bcast,auto
common="--suite sweep --bytes ${BYTES:-64K,128K,256K,512K,1M,4M} --patterns one-late,staircase,uniform --delays 10tau --iterations 20 --warmup 8"
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
run() {  # run OUT COLLECTIVE LAUNCH...
  local out=$1 c=$2; shift 2
  local algs=$RED extra="--root 0"
  [ "$c" = allreduce ] && algs=$AR extra=
  echo "== $out $(date +%T)"
  "$@" $common --collective "$c" $extra --algorithms "$algs" --json "$out.json" > "$out.log" 2>&1 \
    || echo "   FAILED rc=$?"
}
if [ "${2:-net}" = mpich-net ]; then
  for c in allreduce reduce; do
    run mpich-net-np4-$c-r$round $c $BM/bin/papshim-run --emulate-network 1gbit -- mpiexec.mpich -n 4 $BM/bin/papshim-bench
  done
elif [ "${2:-net}" = net ]; then
  for np in 8 4; do
    for c in allreduce reduce; do
      run net-np$np-$c-r$round $c $B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench
    done
  done
else
  for np in 4 8; do
    for c in allreduce reduce; do
      run shm-np$np-$c-r$round $c $ompi -n $np $B/bin/papshim-bench
    done
  done
  for c in allreduce reduce; do
    run shm-mpich-np4-$c-r$round $c mpiexec.mpich -n 4 $BM/bin/papshim-bench
  done
fi
echo "== done $(date +%T)"
