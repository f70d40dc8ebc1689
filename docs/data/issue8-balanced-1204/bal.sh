#!/bin/bash
# Issue 8's "auto >= 0.97x native's speed on balanced arrivals at every size", at the build of
# 2026-12-04 (the dynamic leader's Reduce and auto's one-node Reduce rule): Reduce (root 0) and
# Allreduce, D = 0 (barrier-synchronised calls), native and auto in an order shuffled per call,
# 8 B, 64 KiB, 1 MiB, 4 MiB, shared memory, p = 2 (a core per rank) and 4 (two per core), both
# MPIs. Each case runs twice in dispatch mode (auto decides) and twice with PAPSHIM_MODE=off,
# alternating: with the shim off "auto" forwards like "native", so the off runs show what
# the method reads where nothing differs.
# Usage: bal.sh   (from this directory; builds in ../../../build/{openmpi,mpich})
# Since 2026-12-04 (later, docs/data/fastpath-1204): BYTES= the sizes (default 8,64K,1M,4M),
# BUILDS= the directory holding the builds (default ../../../build), PREFIX= a tag prefix.
top=$(cd ../../.. && pwd)
# OVERSUB= (empty) launches Open MPI without --oversubscribe, which otherwise also sets its
# yield-when-idle mode; those runs are tagged -nooversub.
OVERSUB=${OVERSUB---oversubscribe}
suffix=$([ -z "$OVERSUB" ] && echo -nooversub)
BAL="--suite sweep --algorithms native,auto --patterns one-late --delays 0 --warmup 20 --iterations ${ITER:-300} --bytes ${BYTES:-8,64K,1M,4M}"
for case in ${CASES:-openmpi:2 mpich:2 openmpi:4 mpich:4}; do
  IFS=: read mpi np <<< "$case"
  B=${BUILDS:-$top/build}/$mpi
  for c in allreduce reduce; do
    for r in 1 2; do
      for mode in dispatch off; do
        tag=${PREFIX}$mpi$([ $mpi = openmpi ] && echo "$suffix")-np$np-$c-$mode-$r
        echo "== $tag $(date +%T)"
        if [ $mpi = openmpi ]; then
          PAPSHIM_MODE=$mode mpiexec.openmpi --allow-run-as-root $OVERSUB --mca mtl ^ofi,psm,psm2 -x PAPSHIM_MODE \
            -n $np $B/bin/papshim-bench $BAL --collective $c --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
        else
          mpiexec.mpich -n $np -genv PAPSHIM_MODE $mode $B/bin/papshim-bench $BAL --collective $c --json $tag.json > $tag.log 2>&1 \
            || echo "   FAILED rc=$?"
        fi
      done
    done
  done
done
echo "== done $(date +%T)"
