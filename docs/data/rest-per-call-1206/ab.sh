#!/bin/bash
# The rest per call (ExchangeRest::observe_call) against the build before it, alternating jobs:
# the matrix's order of points (per size: one late rank, staircase, fresh random delays of
# 10tau), so each size's first point follows the fresh random delays of the size before.
# A, B: installs of the two builds. Usage: ab.sh ROUND
A=${A:-/tmp/build-023d93a}
B=${B:-/tmp/build-rest}
round=${1:-1}
for np in ${NPS:-8 4}; do
  for c in ${COLLECTIVES:-allreduce reduce}; do
    algs=native,predicted_scatter,arrival_chain,auto extra=
    [ $c = reduce ] && algs=native,pipelined_binomial,predicted_chain,auto extra="--root 0"
    for build in A B; do
      dir=${!build}
      out=$c-np$np-$build-r$round
      echo "== $out $(date +%T)"
      $dir/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe \
        --mca mtl ^ofi,psm,psm2 -n $np $dir/bin/papshim-bench --suite sweep --collective $c $extra \
        --bytes ${BYTES:-128K,256K,512K,1M} --algorithms $algs --patterns one-late,staircase,uniform \
        --delays 10tau --iterations 20 --warmup 8 --json $out.json > $out.log 2>&1 || echo "   FAILED rc=$?"
    done
  done
done
echo "== done $(date +%T)"
