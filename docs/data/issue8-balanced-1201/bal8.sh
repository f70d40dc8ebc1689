#!/bin/bash
# Issue 8's "auto >= 0.97x native's speed on balanced arrivals at every size", at 53bf187: Reduce and Allreduce,
# D = 0, native and auto interleaved, two runs per case: shared memory (Open MPI p = 4 and 8, MPICH p = 4) and the
# emulated 1 Gbit/s network (Open MPI p = 8, one and two ranks per node). As at 9e2edd2 (docs/benchmarks.md).
B=${B:-/tmp/build-new}; M=${M:-/tmp/build-new-mpich}
BAL="--suite sweep --algorithms native,auto --patterns one-late --delays 0 --warmup 20"
OMPI="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -x LD_LIBRARY_PATH=$B/lib"
run() {  # name launcher... -- bench args
  local name=$1; shift
  echo "== $name $(date +%T)"
  "$@" --json bal8-$name.json > bal8-$name.log 2>&1 || echo "   FAILED rc=$?"
}
for r in 1 2; do
  for np in 4 8; do
    run shm-ompi-np$np-ar-$r $OMPI -n $np $B/bin/papshim-bench $BAL --iterations 200 --collective allreduce --bytes 8,64K,1M,4M
    run shm-ompi-np$np-rd-$r $OMPI -n $np $B/bin/papshim-bench $BAL --iterations 200 --collective reduce --bytes 8,64K,1M,4M
  done
  run shm-mpich-np4-ar-$r env LD_LIBRARY_PATH=$M/lib mpiexec.mpich -n 4 -genv LD_LIBRARY_PATH $M/lib $M/bin/papshim-bench $BAL --iterations 200 --collective allreduce --bytes 8,64K,1M,4M
  run shm-mpich-np4-rd-$r env LD_LIBRARY_PATH=$M/lib mpiexec.mpich -n 4 -genv LD_LIBRARY_PATH $M/lib $M/bin/papshim-bench $BAL --iterations 200 --collective reduce --bytes 8,64K,1M,4M
  for rpn in 1 2; do
    for c in allreduce reduce; do
      run net-rpn$rpn-$c-$r $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node $rpn -- $OMPI -n 8 $B/bin/papshim-bench $BAL --iterations 40 --collective $c --bytes 8,64K,1M,4M
    done
  done
done
echo "== done $(date +%T)"
