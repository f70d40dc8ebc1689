#!/bin/bash
# usage: runo.sh NAME BUILD NP BYTES EAGER
name=$1; build=$2; np=$3; bytes=$4; eager=$5
cd /work/main
$build/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2 --mca btl_tcp_eager_limit $eager -x PAPSHIM_VERBOSE=1 -n $np \
  $build/bin/papshim-bench --suite sweep --collective allreduce --bytes $bytes --patterns one-late,staircase \
  --delays 10tau --iterations 20 --warmup 8 --algorithms native,predicted_scatter,auto --json /tmp/e8/$name.json > /tmp/e8/$name.log 2>&1
echo "$name rc=$?"
