#!/bin/bash
# usage: run.sh NAME BUILD NP BYTES RNDV [extra]
name=$1; build=$2; np=$3; bytes=$4; rndv=$5
cd /work/main
$build/bin/papshim-run --emulate-network 1gbit -- mpiexec.mpich -n $np -genv UCX_RNDV_THRESH $rndv \
  $build/bin/papshim-bench --suite sweep --collective allreduce --bytes $bytes --patterns one-late,staircase \
  --delays 10tau --iterations 20 --warmup 8 --algorithms native,predicted_scatter,auto --json /tmp/e8/$name.json > /tmp/e8/$name.log 2>&1
echo "$name rc=$?"
