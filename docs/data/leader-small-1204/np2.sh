#!/bin/bash
# A core per rank (p = 2 on the VM's 2 cores): the dynamic leader's Reduce (root 0) and
# Allreduce against native and auto, balanced, one late rank and fresh random delays of 10τ;
# both MPIs; 200 calls per point after 20. The model (docs/simulator.md, "The dynamic leader
# on one node") expects the leader to lose balanced where a rank has its core.
# The runs of 2026-12-04: `np2.sh 1` (np2-*: 8 B to 4 MiB) and, where the leader crosses
# native's time, `PREFIX=np2-sizes BYTES=64K,128K,256K,512K,1M ALGS=native,dynamic_leader,arrival_chain,auto np2.sh 1`.
# Open MPI runs here with --oversubscribe, as every run on this VM: that also sets Open MPI's
# yield-when-idle mode, which slowed native (96 -> 180 us at 1 MiB) and the leader more (96 ->
# 328 us). As a user with a CPU per rank launches it, the bound-*.log runs (by hand, 2026-12-04):
#   mpiexec.openmpi --allow-run-as-root --mca mtl ^ofi,psm,psm2 --bind-to core|none -n 2 papshim-bench \
#     --suite sweep --collective allreduce --bytes 256K,1M,4M --patterns one-late,uniform --delays 0,10tau \
#     --algorithms native,dynamic_leader --iterations 200 --warmup 20   (the Reduce: 64K,256K,1M,4M, + arrival_chain)
#   mpiexec.mpich -bind-to core -n 2 papshim-bench ... --bytes 256K,512K,1M,4M --algorithms native,dynamic_leader
# reduce_local_alone.c: PMPI_Reduce_local and memcpy alone, one process, 512 KiB-2 MiB.
# Usage: [PREFIX=..] [BYTES=..] [ALGS=..] np2.sh ROUND   (from this directory)
round=${1:-1}
top=$(cd ../../.. && pwd)
for mpi in openmpi mpich; do
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then run="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n 2"
  else run="mpiexec.mpich -n 2"; fi
  for c in allreduce reduce; do
    tag=${PREFIX:-np2}-$mpi-$c-r$round
    echo "== $tag $(date +%T)"
    $run $B/bin/papshim-bench --suite sweep --collective $c --bytes ${BYTES:-8,64K,1M,4M} --patterns one-late,uniform \
      --delays 0,10tau --algorithms ${ALGS:-native,dynamic_leader,auto} --iterations ${ITER:-200} --warmup 20 \
      --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
