#!/bin/bash
# The dynamic leader beyond its default 64 KiB slot (2026-12-03): Allreduce on one node,
# 256 KiB to 4 MiB, PAPSHIM_SHM_SLOT=4 MiB, against native and the message algorithms;
# balanced, one late rank and fresh random delays of 10 tau; Open MPI p = 4 and 8, MPICH
# p = 4; 100 calls per point after 10. SLOT=default leaves PAPSHIM_SHM_SLOT unset (auto:
# 4 MiB at these node sizes since this change) and names the logs *-default-*.
# Usage: [SLOT=default] run.sh ROUND   (from this directory; builds in ../../../build/{openmpi,mpich})
round=${1:-1}
top=$(cd ../../.. && pwd)
if [ "${SLOT:-4194304}" = default ]; then unset PAPSHIM_SHM_SLOT; round=default-$round
else export PAPSHIM_SHM_SLOT=${SLOT:-4194304}; fi
for case in openmpi:4 openmpi:8 mpich:4; do
  IFS=: read mpi np <<< "$case"
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then run="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n $np"
  else run="mpiexec.mpich -n $np"; fi
  tag=$mpi-np$np-r$round
  echo "== $tag $(date +%T)"
  $run $B/bin/papshim-bench --suite sweep --collective allreduce --bytes ${BYTES:-256K,1M,4M} --patterns one-late,uniform \
    --delays 0,10tau --algorithms native,auto,rabenseifner,ring,dynamic_leader,hierarchical --iterations ${ITER:-100} \
    --warmup 10 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
