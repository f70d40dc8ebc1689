#!/bin/bash
# auto's rule at 64-128 KiB per rank, p = 8 across nodes: ring vs Sparbit vs native, and what auto runs.
B=${B:-/tmp/build-head}; tag=${tag:-head}
export PAPSHIM_HELPER_THREAD=always
for r in ${runs:-1 2}; do
  for c in allgather allgatherv; do
    echo "== $tag $c $r $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
      --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
      --collective $c --bytes 64K,128K --patterns uniform,staircase,one-late --delays 0,10tau,40tau \
      --algorithms ${algs:-native,ring,sparbit,auto} --iterations 40 --warmup 8 --json $tag-$c-$r.json > $tag-$c-$r.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
