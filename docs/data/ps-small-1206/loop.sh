#!/bin/bash
# The rule in a 100-call loop: Allreduce 128 and 256 KiB, p = 8, one rank per emulated 1 Gbit/s
# node, one late rank, a staircase and fresh random delays of 10 tau; native, the arrival-ordered
# chain, Clairvoyant's named and auto interleaved per call.
B=${B:-/tmp/new1}
$B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
  --mca mtl ^ofi,psm,psm2 $B/bin/papshim-bench --suite sweep --collective allreduce --bytes 128K,256K \
  --algorithms native,arrival_chain,clairvoyant,auto --patterns one-late,staircase,uniform --delays 10tau \
  --iterations 100 --warmup 8 --json loop-np8-r${1:-1}.json > loop-np8-r${1:-1}.log 2>&1 || echo "FAILED rc=$?"
