#!/bin/bash
# random_loop.c (docs/data/auto-ring-64K; equal blocks) at p = 4, two ranks per emulated 1 Gbit/s node, 128 KiB per
# rank: native, the ring named and auto (the ring there since f8877d2) in turn, fresh processes, 200 calls, three
# rounds, balanced (D = 0) and fresh random delays of up to 10 tau. Output: apploop4.txt.
B=${B:-build/openmpi}
PROGRAM=${PROGRAM:-/work/m1203/random_loop}   # mpicc.openmpi -O2 -I include random_loop.c -L$B/lib -lpapshim
bytes=131072
for d in 0 0.011; do
  for v in "" v; do
    for round in 1 2 3; do
      for algorithm in native ring auto; do
        line=$(PAPSHIM_ALLGATHER=$algorithm PAPSHIM_ALLGATHERV=$algorithm $B/bin/papshim-run --emulate-network 1gbit \
          --ranks-per-node 2 -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4 --mca mtl ^ofi,psm,psm2 \
          -x PAPSHIM_ALLGATHER -x PAPSHIM_ALLGATHERV -x LD_LIBRARY_PATH=$B/lib $PROGRAM $bytes 200 $d $v 2>&1 | grep '^e ')
        echo "p=4 rpn=2 bytes=$bytes D=$d ${v:+allgatherv} round=$round $algorithm $line"
      done
    done
  done
done
