#!/bin/bash
# issue 7's targets (a)-(d) in long loops at one build: 3 runs of 100 measured calls per point, p = 8,
# one rank per emulated node, 1 Gbit/s, 10tau. (a)(b) Allgather 1 MiB, (c) Allgatherv 1 MiB mean block
# (decreasing blocks; rank 0 late, the largest block, and staircase), (d) Allgather 64 KiB.
B=${B:-/tmp/build-e1e6e04}   # a copy of build/openmpi at e1e6e04
export PAPSHIM_HELPER_THREAD=always
run() {  # name collective bytes patterns algorithms
  echo "== $1 $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
    --collective $2 --bytes $3 --patterns $4 --delays 10tau --algorithms $5 --iterations 100 --warmup 8 \
    --json long-$1.json > long-$1.log 2>&1 || echo "   FAILED rc=$?"
}
for r in 1 2 3; do
  run ag1M-$r allgather 1M one-late,staircase native,ring,bdr,auto
  run agv1M-$r allgatherv 1M one-late:0,staircase native,ring,sparbit,bdr,auto
  run ag64K-$r allgather 64K one-late,staircase native,ring,sparbit,bdr,auto
done
# auto's rule between 64 and 256 KiB per rank (the ring while the sampled exchanges show imbalance, at p = 8)
for r in 1 2; do
  echo "== ag-small-$r $(date +%T)"
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
    --collective allgather --bytes 64K,128K --patterns uniform,staircase --delays 0,10tau,40tau --algorithms native,ring,sparbit,bruck,auto \
    --iterations 40 --warmup 8 --json ag-small-$r.json > ag-small-$r.log 2>&1 || echo "   FAILED rc=$?"
done
echo "== done $(date +%T)"
