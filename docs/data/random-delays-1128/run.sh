#!/bin/bash
cd /work/main
B=build/openmpi/bin
NET="$B/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8"
for r in a b; do
for coll in allgather allgatherv; do
for bytes in 64K 1M; do
  env PAPSHIM_HELPER_THREAD=always $NET $B/papshim-bench --suite sweep --collective $coll --bytes $bytes \
    --algorithms native,ring,sparbit,bruck,recursive_doubling,auto --patterns uniform --delays 10tau,40tau \
    --iterations 20 --warmup 8 --json /tmp/e/$coll-$bytes-$r.json > /tmp/e/$coll-$bytes-$r.txt 2>&1
  echo "$coll $bytes $r done $(date +%T)"
done; done; done
