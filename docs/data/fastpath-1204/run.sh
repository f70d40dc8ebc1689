#!/bin/bash
# The forwarded call's cost before and after the quick path (forwards_at_once): papshim-bench's
# overhead suite (an 8-byte MPI_Allreduce, a 1 KiB and a 64 KiB Allgather per rank, each as
# native, off, profile, dispatch+native and dispatch+auto in one process) from two builds,
# alternating: BASE (the commit before, built with -DPAPSHIM_TESTS=OFF) and this checkout's.
# p = 2 (a core per rank on this VM), both MPIs, Open MPI without --oversubscribe (which sets
# its yield-when-idle mode). RUNS pairs (default 6).
# Usage: BASE=/path/to/base/checkout run.sh   (from this directory; builds in $BASE/build-<mpi>)
top=$(cd ../../.. && pwd)
: "${BASE:?BASE=<checkout of the commit before, built in build-openmpi and build-mpich>}"
for r in $(seq 1 "${RUNS:-6}"); do
  for mpi in ${MPIS:-openmpi mpich}; do
    for build in base new; do
      bench=$top/build/$mpi/bin/papshim-bench
      [ $build = base ] && bench=$BASE/build-$mpi/bin/papshim-bench
      tag=$build-$mpi-np2-$r
      echo "== $tag $(date +%T)"
      if [ $mpi = openmpi ]; then
        mpiexec.openmpi --allow-run-as-root --mca mtl ^ofi,psm,psm2 -n 2 "$bench" --suite overhead \
          --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
      else
        mpiexec.mpich -n 2 "$bench" --suite overhead --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
      fi
    done
  done
done
gzip -f ./*.json
echo "== done $(date +%T)"
