#!/bin/bash
# issue 9's matrix at a12c81b (the np4 Reduce and shared-memory Reduce files are a second run,
# the first having shared the machine with a build): Reduce and Allreduce, 64 KiB/1 MiB/4 MiB, np 4 and 8,
# one-late, staircase, uniform at 10tau; emulated 1 Gbit/s (helper thread on, as before) and shared memory (defaults)
B=/tmp/build-a12c81b
RED=native,binomial,arrival_chain,predicted_chain,clairvoyant,auto
AR=native,recursive_doubling,arrival_chain,predicted_chain,predicted_scatter,clairvoyant,clairvoyant_bcast,auto
common="--suite sweep --bytes 64K,1M,4M --patterns one-late,staircase,uniform --delays 10tau --iterations 20 --warmup 8"
for np in 8 4; do
  for c in reduce allreduce; do
    algs=$RED; [ $c = allreduce ] && algs=$AR
    echo "== net np$np $c $(date)"
    PAPSHIM_HELPER_THREAD=always $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD $B/bin/papshim-bench $common --collective $c $( [ $c = reduce ] && echo --root 0 ) --algorithms $algs --json net-np$np-$c.json > net-np$np-$c.log 2>&1
  done
done
for np in 4 8; do
  for c in reduce allreduce; do
    algs=$RED; [ $c = allreduce ] && algs=$AR
    echo "== shm np$np $c $(date)"
    mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench $common --collective $c $( [ $c = reduce ] && echo --root 0 ) --algorithms $algs --json shm-np$np-$c.json > shm-np$np-$c.log 2>&1
  done
done
echo "== done $(date)"
