#!/bin/bash
# Short runs: 12 calls, no warm-up, 256 KiB Reduce (root 0), emulated 1 Gbit/s, one rank per node, balanced and
# one late rank at 10tau; BEFORE (Clairvoyant's plan from 512 KiB) against AFTER (from 256 KiB), interleaved, 3 rounds.
BEFORE=${BEFORE:-/tmp/m10} AFTER=${AFTER:-/tmp/bv256}  # builds of 843d9b2 and of 8f327e0 with network_reduce_min_bytes = 256 KiB
for round in ${ROUNDS:-1 2 3}; do  # rounds 4-6: ROUNDS="4 5 6" AFTER=<a build of 6cc31f6>
  for np in 4 8; do
    for B in $BEFORE $AFTER; do
      tag=$([ $B = $BEFORE ] && echo before || echo after)-r$round-np$np-256K-short
      echo "== $tag $(date)"
      $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n $np \
        --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --bytes 256K --patterns one-late --delays 0,10tau \
        --iterations 12 --warmup 0 --collective reduce --root 0 --algorithms native,binomial,auto --json $tag.json > $tag.log 2>&1
    done
  done
done
echo "== done $(date)"
