#!/bin/bash
# usage: run_long.sh BUILD OUT.json bytes patterns delays iterations warmup [extra]
B=$1; OUT=$2; BYTES=$3; PATS=$4; DELAYS=$5; IT=$6; WU=$7; shift 7
export PAPSHIM_HELPER_THREAD=always
$B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
  --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD \
  $B/bin/papshim-bench --suite sweep --collective reduce --root 0 --bytes $BYTES \
  --patterns $PATS --delays $DELAYS --algorithms native,binomial,clairvoyant,auto \
  --iterations $IT --warmup $WU --json $OUT "$@"
