#!/bin/bash
# issue 7's Done-when sweep at e1e6e04: Allgather and Allgatherv (decreasing blocks), 64 KiB/256 KiB/1 MiB per rank,
# np 4 and 8, one-late, staircase, uniform at D = 0, 10tau, 40tau; native, the classic algorithms, BDR, BSLB, auto.
# Emulated 1 Gbit/s (Open MPI; MPICH 4.0.2 cannot run there) and shared memory (Open MPI and MPICH).
B=/tmp/build-e1e6e04
M=/tmp/build-e1e6e04-mpich
ALGS=native,ring,sparbit,bruck,bdr,bslb,auto
common="--suite sweep --bytes 64K,256K,1M --patterns one-late,staircase,uniform --delays 0,10tau,40tau --iterations 20 --warmup 8 --algorithms $ALGS"
export PAPSHIM_HELPER_THREAD=always
for np in 8 4; do
  for c in allgather allgatherv; do
    echo "== net np$np $c $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench $common --collective $c --json net-np$np-$c.json > net-np$np-$c.log 2>&1 || echo "   FAILED rc=$?"
  done
done
for np in 4 8; do
  for c in allgather allgatherv; do
    echo "== shm ompi np$np $c $(date +%T)"
    mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib \
      $B/bin/papshim-bench $common --collective $c --json shm-ompi-np$np-$c.json > shm-ompi-np$np-$c.log 2>&1 || echo "   FAILED rc=$?"
  done
done
for c in allgather allgatherv; do
  echo "== shm mpich np4 $c $(date +%T)"
  LD_LIBRARY_PATH=$M/lib mpiexec.mpich -n 4 -genv PAPSHIM_HELPER_THREAD always -genv LD_LIBRARY_PATH $M/lib \
    $M/bin/papshim-bench $common --collective $c --json shm-mpich-np4-$c.json > shm-mpich-np4-$c.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
