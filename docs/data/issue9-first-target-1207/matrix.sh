#!/bin/bash
# Issue 9's first target at one build (2026-12-07, main = e1494b3): the Allreduce (and the
# Reduce, round 1) at 64 KiB-4 MiB, p = 4 and 8, one late rank and a staircase of 10tau,
# emulated 1 Gbit/s with one rank per node, papshim's defaults; Open MPI (ob1, TCP) two rounds,
# MPICH (UCX over TCP) p = 4 one round. Usage: [OUT=dir] matrix.sh ROUND [ompi|mpich|reduce]
# (OUT: where the runs go, /tmp/m9 by default)
cd /work/main
B=build/openmpi; BM=build/mpich
round=${1:-1}
AR=native,predicted_scatter,clairvoyant,auto
RED=native,predicted_chain,clairvoyant,auto
common="--suite sweep --bytes ${BYTES:-64K,128K,256K,512K,1M,4M} --patterns one-late,staircase --delays 10tau --iterations 20 --warmup 8"
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
run() {  # run OUT COLLECTIVE LAUNCH...
  local name=$1 out=${OUT:-/tmp/m9}/$1 c=$2; shift 2
  local algs=$AR extra=
  [ "$c" = reduce ] && algs=$RED extra="--root 0"
  echo "== $name $(date +%T)"
  "$@" $common --collective "$c" $extra --algorithms "$algs" --json "$out.json" > "$out.log" 2>&1 \
    || echo "   FAILED rc=$?"
}
case ${2:-ompi} in
ompi) for np in 8 4; do
        run ompi-np$np-allreduce-r$round allreduce $B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench
      done ;;
reduce) for np in 8 4; do
        run ompi-np$np-reduce-r$round reduce $B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench
      done ;;
mpich) run mpich-np4-allreduce-r$round allreduce $BM/bin/papshim-run --emulate-network 1gbit -- mpiexec.mpich -n 4 $BM/bin/papshim-bench ;;
esac
echo "== done $(date +%T)"
