#!/bin/bash
# The node algorithms' wait with a core per rank (2026-12-05): Backoff spun 64 pauses and then
# yielded; now, where the node's cores are not shared (WaitPolicy::mpi), it spins up to 1 ms
# before yielding. p = 2 on the VM's 2 cores (Open MPI without --oversubscribe): the build
# before (its libpapshim.so.0 copied to $BEFORE/{openmpi,mpich}, found first through
# LD_LIBRARY_PATH: papshim-bench's RUNPATH yields to it) and after, one after the other in
# each round. Allreduce and Reduce, 8 B to 256 KiB, balanced, one late rank and fresh random
# delays of 10τ and 200 µs; native, symmetric_shm (Allreduce), dynamic_leader and auto.
# NP=4 (Open MPI with --oversubscribe) is the control: 4 ranks on 2 cores never spin long, so
# before and after must read alike there.
# BUILDS="before allsizes after" adds the first version of the change (5f89dc7: every call's
# waits spun, whatever its size), its libpapshim.so.0 copied to $ALLSIZES/{openmpi,mpich}:
# rounds 1-10 ran before and allsizes, rounds 11-20 before and after (the spin up to 1 KiB).
# Usage: [NP=2] [BUILDS=...] run.sh ROUND   (from this directory; builds in ../../../build/{openmpi,mpich})
round=${1:-1}
top=$(cd ../../.. && pwd)
BEFORE=${BEFORE:-/tmp/before}
ALLSIZES=${ALLSIZES:-/tmp/allsizes}
np=${NP:-2}
for mpi in ${MPIS:-openmpi mpich}; do
  order=${BUILDS:-before after}
  [ $((round % 2)) = 0 ] && order=$(echo $order | tr ' ' '\n' | tac | tr '\n' ' ')  # no side always first
  for build in $order; do
    for coll in allreduce reduce; do
      B=$top/build/$mpi
      libs=$B/lib; [ $build = before ] && libs=$BEFORE/$mpi; [ $build = allsizes ] && libs=$ALLSIZES/$mpi
      if [ $mpi = openmpi ]; then
        run="mpiexec.openmpi --allow-run-as-root --mca mtl ^ofi,psm,psm2 -x LD_LIBRARY_PATH=$libs -n $np"
        [ $np -gt 2 ] && run="$run --oversubscribe"
      else run="mpiexec.mpich -genv LD_LIBRARY_PATH $libs -n $np"; fi
      algs=native,symmetric_shm,dynamic_leader,auto; [ $coll = reduce ] && algs=native,dynamic_leader,auto
      tag=$mpi-np$np-$coll-$build-r$round
      echo "== $tag $(date +%T)"
      $run $B/bin/papshim-bench --suite sweep --collective $coll --bytes ${BYTES:-8,64,1K,16K,256K} \
        --patterns one-late,uniform --delays 0,10tau,200us --algorithms $algs \
        --iterations ${ITER:-200} --warmup 20 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
      gzip -f $tag.json
    done
  done
done
echo "== done $(date +%T)"
