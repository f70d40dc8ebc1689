#!/bin/bash
# Issue 9's second target with the last arriver's trust (2026-12-07): fresh random delays of
# 10tau, the Allreduce, 64 KiB-4 MiB, p = 8 and 4, emulated 1 Gbit/s one rank per node, Open MPI:
# native, the arrival-ordered chain, the predicted scatter and auto. Usage: guard.sh NAME BUILD_DIR
name=$1 B=$2
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
for np in 8 4; do
  echo "== $name-np$np $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench --suite sweep --collective allreduce \
    --bytes 64K,128K,256K,512K,1M,4M --patterns uniform --delays 10tau --iterations 20 --warmup 8 \
    --algorithms native,arrival_chain,predicted_scatter,auto --json /tmp/lt/$name-np$np.json > /tmp/lt/$name-np$np.log 2>&1 || echo "   FAILED rc=$?"
done
