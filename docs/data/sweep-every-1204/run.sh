#!/bin/bash
# Issue 8's sweep at one build: Reduce (root 0) and Allreduce, every algorithm papshim has for
# them and `auto`, against native in the same run; 8 B to 4 MiB; balanced (D = 0), one late
# rank and uniform random delays of 10τ; p = 4 and 8; shared memory (Open MPI and MPICH) and an
# emulated 1 Gbit/s cluster of one rank per node (root, docs/emulated-network.md; MPICH there
# since papshim keeps its MPI_Finalize from hanging, 2026-12-04: CASES="1gbit:mpich:4 1gbit:mpich:8").
# Usage: run.sh   (from this directory; builds in ../../../build/{openmpi,mpich})
# CASES= a subset of net:mpi:np (default below); ITER/WARMUP/BYTES override the defaults.
top=$(cd ../../.. && pwd)
reduce=$("$top/build/openmpi/bin/papshim-info" --algorithms | awk -F'\t' '$1 == "reduce" {gsub(/ /, "", $2); print $2}')
allreduce=$("$top/build/openmpi/bin/papshim-info" --algorithms | awk -F'\t' '$1 == "allreduce" {gsub(/ /, "", $2); print $2}')
SWEEP="--suite sweep --patterns one-late,uniform --delays 0,10tau --iterations ${ITER:-10} --warmup ${WARMUP:-3} --bytes ${BYTES:-8,64K,256K,1M,4M}"
OMPI="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
for case in ${CASES:-shm:openmpi:4 shm:openmpi:8 1gbit:openmpi:4 1gbit:openmpi:8 shm:mpich:4}; do
  IFS=: read net mpi np <<< "$case"
  B=$top/build/$mpi/bin
  for c in reduce allreduce; do
    algorithms=$([ $c = reduce ] && echo "$reduce" || echo "$allreduce")
    tag=$c-$net-$mpi-np$np
    echo "== $tag $(date +%T)"
    args=($SWEEP --collective $c --algorithms "$algorithms" --json $tag.json)
    if [ $net = 1gbit ] && [ $mpi = openmpi ]; then
      "$B/papshim-run" --emulate-network 1gbit -- $OMPI -n $np "$B/papshim-bench" "${args[@]}" > $tag.log 2>&1 || echo "   FAILED rc=$?"
    elif [ $net = 1gbit ]; then
      "$B/papshim-run" --emulate-network 1gbit -- mpiexec.mpich -n $np "$B/papshim-bench" "${args[@]}" > $tag.log 2>&1 || echo "   FAILED rc=$?"
    elif [ $mpi = openmpi ]; then
      $OMPI -n $np "$B/papshim-bench" "${args[@]}" > $tag.log 2>&1 || echo "   FAILED rc=$?"
    else
      mpiexec.mpich -n $np "$B/papshim-bench" "${args[@]}" > $tag.log 2>&1 || echo "   FAILED rc=$?"
    fi
  done
done
gzip -f ./*.json
echo "== done $(date +%T)"
