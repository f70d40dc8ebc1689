#!/bin/bash
# Fresh short jobs and longer loops as a user runs them: examples/c/imbalance, an 8-byte
# MPI_Allreduce of one double per iteration on MPI_COMM_WORLD, under the shim with
# PAPSHIM_ALLREDUCE=native and =auto in turn, in new processes each time. Rank 0's mean time per
# call (timing_us) goes to fresh-<mpi>-np<p>.txt, one line per run: mode iterations pattern us.
# Usage: fresh.sh ROUNDS   (from this directory; builds in ../../../build/{openmpi,mpich})
rounds=${1:-10}
top=$(cd ../../.. && pwd)
for case in ${CASES:-openmpi:4 mpich:4 openmpi:2}; do
  IFS=: read mpi np <<< "$case"
  B=$top/build/$mpi
  if [ $mpi = openmpi ]; then
    run="mpiexec.openmpi --allow-run-as-root --mca mtl ^ofi,psm,psm2 -n $np"
    [ $np -gt 2 ] && run="$run --oversubscribe"
  else run="mpiexec.mpich -n $np"; fi
  out=fresh-$mpi-np$np.txt
  : > $out
  echo "== $mpi np$np $(date +%T)"
  for r in $(seq $rounds); do
    for iterations in 10 1000; do
      for pattern in none one-late:$((np - 1)):0.2; do
        for mode in native auto; do
          us=$(PAPSHIM_ALLREDUCE=$mode LD_PRELOAD=$B/lib/libpapshim.so $run $B/bin/imbalance --collectives allreduce \
               --count 1 --type double --iterations $iterations --pattern $pattern | sed -n 's/^timing_us allreduce=//p')
          echo "$mode $iterations $pattern $us" >> $out
        done
      done
    done
  done
done
echo "== done $(date +%T)"
