#!/bin/bash
# The forwarded call's cost before and after the quick path (forwards_at_once): papshim-bench's
# overhead suite (8-byte MPI_Allreduce and MPI_Reduce loops, 1 KiB and 64 KiB Allgather loops,
# each as native, off, profile, dispatch+native and dispatch+auto in one process), this
# checkout's papshim-bench against this checkout's libpapshim ("new") and against BASE's (the
# commit before, "base": preloaded, its soname stands in for the bench's own), alternating.
# p = 2 (a core per rank on this VM), both MPIs, Open MPI without --oversubscribe (which sets
# its yield-when-idle mode). Runs FIRST..FIRST+RUNS-1 (default 1..6).
# Usage: BASE=/path/to/base/checkout run.sh   (from this directory; BASE built in build-<mpi>)
top=$(cd ../../.. && pwd)
: "${BASE:?BASE=<checkout of the commit before, built in build-openmpi and build-mpich>}"
for r in $(seq "${FIRST:-1}" $(( ${FIRST:-1} + ${RUNS:-6} - 1 ))); do
  for mpi in ${MPIS:-openmpi mpich}; do
    for build in base new; do
      preload=
      [ $build = base ] && preload=$BASE/build-$mpi/lib/libpapshim.so.0
      tag=$build-$mpi-np2-$r
      echo "== $tag $(date +%T)"
      if [ $mpi = openmpi ]; then
        mpiexec.openmpi --allow-run-as-root --mca mtl ^ofi,psm,psm2 -x LD_PRELOAD=$preload -n 2 \
          "$top/build/$mpi/bin/papshim-bench" --suite overhead --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
      else
        mpiexec.mpich -genv LD_PRELOAD "$preload" -n 2 "$top/build/$mpi/bin/papshim-bench" --suite overhead \
          --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
      fi
    done
  done
done
gzip -f ./*.json
echo "== done $(date +%T)"
