#!/bin/bash
# Paired: 09eb112 (issue 7's staircase 0.62-0.63 in 100-call loops) against e1e6e04, alternating.
export PAPSHIM_HELPER_THREAD=always
run() {  # build tag bytes
  B=$1
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
    --collective allgather --bytes $3 --patterns one-late,staircase --delays 10tau --algorithms native,ring,bdr \
    --iterations 30 --warmup 8 --json paired-$2.json > paired-$2.log 2>&1 || echo "   FAILED rc=$?"
}
for r in 1 2; do
  for b in 09eb112 e1e6e04; do
    echo "== $b $r $(date +%T)"
    run /tmp/build-$b $b-1M-$r 1M
    run /tmp/build-$b $b-64K-$r 64K
  done
done
echo "== done $(date +%T)"
