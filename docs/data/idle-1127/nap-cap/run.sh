#!/bin/bash
# paired: nap cap 50 us (shipped) against 500 us, BDR and ring, 1 MiB, p = 8, emulated 1 Gbit/s
# needs nap-cap.patch applied (the experiment is not in papshim); EXP_NAP_CAP_NS sets the cap
cd /work/main
for rep in a b; do
  for cap in 50000 500000; do
    out=/tmp/nap/cap$cap-$rep.json
    /usr/bin/time -f "cap $cap rep $rep: user %U s sys %S s wall %e s" env EXP_NAP_CAP_NS=$cap PAPSHIM_HELPER_THREAD=always \
      build/openmpi/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
      build/openmpi/bin/papshim-bench --suite sweep --collective allgather --bytes 1M \
      --algorithms ring,bdr --patterns one-late,staircase --delays 10tau --iterations 40 --warmup 8 --json $out > /tmp/nap/cap$cap-$rep.log 2>&1
    tail -1 /tmp/nap/cap$cap-$rep.log
  done
done
