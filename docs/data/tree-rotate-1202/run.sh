#!/bin/bash
# Does the binomial tree (what `auto` runs where no plan runs, across nodes from 4 ranks on Open MPI 4) lose to
# native under imbalance with a rotating root? papshim-bench over the emulated 1 Gbit/s network, one rank per node,
# 1 MiB Reduce, root 0 and rotating, one late rank, staircase and fresh random delays at 10 tau, 20 calls after 8.
# B: a copy of build/openmpi at 02329de. Usage: [NPS="4 8"] [BYTES=1M] run.sh ROUND (rounds 1-2: p = 4, 8; 3: p = 6; 4: 512K at p = 4, 6; 1M logs are named without the size)
B=${B:-/tmp/m16}
round=${1:-1}
for np in ${NPS:-4 8}; do  # round 3: NPS=6
  for root in 0 rotate; do
    tag=np$np-root$root-${BYTES:-1M}-r$round
    echo "== $tag $(date +%T)"
    $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
      --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective reduce --bytes ${BYTES:-1M} --root $root \
      --patterns one-late,staircase,uniform --delays 10tau --algorithms native,binomial,auto \
      --iterations 20 --warmup 8 --json $tag.json > $tag.log 2>&1 || echo "   FAILED rc=$?"
  done
done
echo "== done $(date +%T)"
