#!/bin/bash
# Open MPI over UCX's TCP (a copy of the emulation's launcher options with pml ucx): NAME NP BYTES [extra -x]
name=$1; np=$2; bytes=$3; shift 3
cd /work/main
/tmp/e8/u/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -x PAPSHIM_VERBOSE=1 "$@" -n $np \
  build/openmpi/bin/papshim-bench --suite sweep --collective allreduce --bytes $bytes --patterns one-late,staircase \
  --delays 10tau --iterations 20 --warmup 8 --algorithms native,predicted_scatter,auto --json /tmp/e8/$name.json > /tmp/e8/$name.log 2>&1
echo "$name rc=$?"
