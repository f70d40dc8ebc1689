#!/bin/bash
# The arrival chain and hierarchical algorithms measured beside papshim-sim's new node model
# (issue 8): Open MPI, shared memory p = 4 and 8 (one node), and the emulated 1 Gbit/s
# network at p = 8 with two ranks per node; one-late (the last rank) and uniform, D = 0 and 10 tau.
B=${B:-/tmp/build-node}
OMPI="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -x LD_LIBRARY_PATH=$B/lib"
AR=native,recursive_doubling,rabenseifner,ring,arrival_chain,hierarchical
RD=native,binomial,rabenseifner,arrival_chain
SW="--suite sweep --patterns one-late,uniform --delays 0,10tau --warmup 4"
run() {  # name launcher... -- bench args
  local name=$1; shift
  echo "== $name $(date +%T)"
  "$@" --json node-$name.json > node-$name.log 2>&1 || echo "   FAILED rc=$?"
}
for np in 4 8; do
  run shm-np$np-ar $OMPI -n $np $B/bin/papshim-bench $SW --iterations 60 --collective allreduce --bytes 1M,4M --algorithms $AR
  run shm-np$np-rd $OMPI -n $np $B/bin/papshim-bench $SW --iterations 60 --collective reduce --bytes 1M,4M --algorithms $RD
done
run net-rpn2-ar $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node 2 -- $OMPI -n 8 $B/bin/papshim-bench $SW --iterations 20 --collective allreduce --bytes 64K,1M --algorithms $AR
run net-rpn2-rd $B/bin/papshim-run --emulate-network 1gbit --ranks-per-node 2 -- $OMPI -n 8 $B/bin/papshim-bench $SW --iterations 20 --collective reduce --bytes 1M --algorithms $RD
echo "== done $(date +%T)"
