#!/bin/bash
# 8 and 64 bytes again, each twice per run in alternating order (the first size of a run read
# differently from the second in the sweeps), Open MPI p = 4 and 8 on the 2 shared cores, balanced and
# 10τ, ROUNDS runs each. Usage: repeat.sh ROUNDS (from this directory)
top=$(cd ../../.. && pwd)
for r in $(seq ${1:-3}); do
  for np in 4 8; do
    tag=repeat-openmpi-np$np-r$r
    mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 -n $np $top/build/openmpi/bin/papshim-bench \
      --suite sweep --collective allreduce --bytes 8,64,8,64 --patterns one-late,uniform --delays 0,10tau \
      --algorithms native,symmetric_shm,auto --iterations 200 --warmup 20 --json $tag.json > $tag.log 2>&1 || echo "$tag FAILED"
    gzip -f $tag.json
  done
done
