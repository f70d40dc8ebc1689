#!/bin/bash
# The shim's cost on the fastest balanced call at this build: papshim-bench's overhead suite
# (an 8-byte MPI_Allreduce loop, dispatch+auto beside native, off and dispatch+native), p = 2
# (a core per rank), both MPIs (MPIS=...), two runs each, alternating.
# Usage: overhead.sh   (from this directory)
top=$(cd ../../.. && pwd)
# OVERSUB= (empty) launches Open MPI without --oversubscribe, which otherwise also sets its
# yield-when-idle mode; those runs are tagged -nooversub.
OVERSUB=${OVERSUB---oversubscribe}
suffix=$([ -z "$OVERSUB" ] && echo -nooversub)
for r in 1 2; do
  for mpi in ${MPIS:-openmpi mpich}; do
    B=$top/build/$mpi
    tag=overhead-$mpi$([ $mpi = openmpi ] && echo "$suffix")-np2-$r
    echo "== $tag $(date +%T)"
    if [ $mpi = openmpi ]; then
      mpiexec.openmpi --allow-run-as-root $OVERSUB --mca mtl ^ofi,psm,psm2 -n 2 $B/bin/papshim-bench --suite overhead \
        --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
    else
      mpiexec.mpich -n 2 $B/bin/papshim-bench --suite overhead --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
    fi
  done
done
echo "== done $(date +%T)"
