#!/bin/bash
# One paired run of docs/benchmarks.md "The emulated network's TCP was BBR": BDR and the ring,
# 1 MiB, p = 8, staircase and one-late at 10 tau. Usage: paired-run.sh NAME [XCC=cubic] [XSSAI=0]
# (the X variables need knobs.patch applied to the build's papshim-netemu)
name=$1; shift
cd "$(git rev-parse --show-toplevel)"
env "$@" build/openmpi/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 build/openmpi/bin/papshim-bench --suite sweep --collective allgather --bytes 1M --algorithms bdr,ring --patterns staircase,one-late --delays 10tau --iterations 20 --warmup 8 --json /tmp/paired-$name.json > /tmp/paired-$name.log 2>&1
echo "$name rc=$?"
