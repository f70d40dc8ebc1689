#!/bin/bash
# Issue 9's second target at one build (f4b44a5): fresh random delays of 10tau, the Allreduce and
# the Reduce (root 0), 64 KiB-4 MiB, p = 8 and 4, emulated 1 Gbit/s one rank per node: native,
# the arrival-ordered chain and auto. Usage: guard.sh
cd /work/main
B=build/openmpi
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
for np in 8 4; do
  for c in allreduce reduce; do
    extra=; [ $c = reduce ] && extra="--root 0"
    echo "== guard-np$np-$c $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench --suite sweep --collective $c $extra \
      --bytes 64K,128K,256K,512K,1M,4M --patterns uniform --delays 10tau --iterations 20 --warmup 8 \
      --algorithms native,arrival_chain,auto --json /tmp/m9/guard-np$np-$c.json > /tmp/m9/guard-np$np-$c.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
