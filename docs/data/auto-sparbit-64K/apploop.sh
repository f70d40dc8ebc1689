#!/bin/bash
# random_loop.c (docs/data/auto-ring-64K) at p = 8, one rank per emulated node, 1 Gbit/s: native, Sparbit named and
# auto alternating, fresh processes, three rounds, balanced (D = 0) and fresh random delays of up to 10 tau.
B=${B:-/tmp/build-new}
PROGRAM=/work/m1203/random_loop   # mpicc.openmpi -O2 -I include random_loop.c -L$B/lib -lpapshim
for bytes in 65536 131072; do
  for d0 in 0 0.0055; do
  d=$(echo "$d0 * $(( bytes / 65536 ))" | bc -l)
  for v in "" v; do
  for round in 1 2 3; do
  for algorithm in native sparbit auto; do
    line=$(PAPSHIM_ALLGATHER=$algorithm PAPSHIM_ALLGATHERV=$algorithm $B/bin/papshim-run --emulate-network 1gbit -- \
      mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 --mca mtl ^ofi,psm,psm2 -x PAPSHIM_ALLGATHER -x PAPSHIM_ALLGATHERV \
      -x LD_LIBRARY_PATH=$B/lib $PROGRAM $bytes 200 $d $v 2>&1 | grep '^e ')
    echo "p=8 bytes=$bytes D=$d ${v:+allgatherv} round=$round $algorithm $line"
  done; done; done; done; done
