#!/bin/bash
# git bisect run: builds this checkout and measures BDR's 64 KiB staircase ratio (p = 8, 10tau) three times;
# bad (1) when the median is above 1.55 (09eb112: 1.36-1.37, e1e6e04: 1.72-1.77), good (0) otherwise, skip (125) if the build fails.
SRC=$(pwd); B=/tmp/bisect-build; L=/work/m1202/bisect
rev=$(git rev-parse --short HEAD)
cmake -S $SRC -B $B -DPAPSHIM_MPI=openmpi -DPAPSHIM_UNIT_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > $L/cfg-$rev.log 2>&1 || exit 125
cmake --build $B -j2 --target papshim papshim-bench > $L/build-$rev.log 2>&1 || exit 125
export PAPSHIM_HELPER_THREAD=always
ratios=()
for r in 1 2 3; do
  $B/bin/papshim-run --emulate-network 1gbit -- mpiexec.openmpi --allow-run-as-root --oversubscribe -n 8 \
    --mca mtl ^ofi,psm,psm2 -x PAPSHIM_HELPER_THREAD -x LD_LIBRARY_PATH=$B/lib $B/bin/papshim-bench --suite sweep \
    --collective allgather --bytes 64K --patterns staircase --delays 10tau --algorithms native,ring,bdr \
    --iterations 30 --warmup 8 --json $L/$rev-$r.json > $L/$rev-$r.log 2>&1 || exit 125
  ratios+=($(python3 -c "
import json; d=json.load(open('$L/$rev-$r.json')); p=d['results']['sizes'][0]['points'][0]
A={a['name']:a['mean_excess_s'] for a in p['algorithms']}; print('%.3f'%(A['bdr']/min(A['native'],A['ring'])))"))
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | sed -n 2p)
echo "$rev ${ratios[*]} median $median" >> $L/results.txt
python3 -c "import sys; sys.exit(1 if $median > 1.55 else 0)"
