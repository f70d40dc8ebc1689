#!/bin/bash
# The jobs behind docs/benchmarks.md, "What the helper thread is for" (Open MPI, p = 8, one
# rank per emulated node, 1 Gbit/s, 1 MiB, 10tau, 8 warm-up calls). Run from the checkout.
B=build/openmpi/bin
NET="$B/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8"
# 1. The thread on and off, alternating job by job, two rounds (ed45cac: named bdr still
#    planned without the thread then).
for r in a b; do
  for coll in allreduce reduce; do
    algs=native,auto,predicted_scatter; [ $coll = reduce ] && algs=native,auto,clairvoyant
    for ht in always 0; do
      env PAPSHIM_HELPER_THREAD=$ht $NET $B/papshim-bench --suite sweep --collective $coll --bytes 1M \
        --algorithms $algs --patterns one-late,staircase --delays 10tau --iterations 30 --warmup 8 \
        --json $coll-ht$ht-$r.json
    done
  done
done
for r in a b; do
  for ht in always 0; do
    env PAPSHIM_HELPER_THREAD=$ht $NET $B/papshim-bench --suite sweep --collective allgather --bytes 1M \
      --algorithms native,ring,bdr --patterns one-late,staircase --delays 10tau --iterations 20 --warmup 8 \
      --json allgather-ht$ht-$r.json
  done
done
# 2. Without the thread, the build before the change (ed45cac, built in a worktree as $BEFORE)
#    and after it, alternating: nothread-ag-{before,after}-{a,b}.json.
for r in a b; do
  for build in before after; do
    bin=$B; [ $build = before ] && bin=$BEFORE/build/bin
    env PAPSHIM_HELPER_THREAD=0 $bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root \
      --oversubscribe -n 8 $bin/papshim-bench --suite sweep --collective allgather --bytes 1M \
      --algorithms native,ring,bdr,bslb --patterns one-late,staircase --delays 10tau --iterations 20 --warmup 8 \
      --json nothread-ag-$build-$r.json
  done
done
