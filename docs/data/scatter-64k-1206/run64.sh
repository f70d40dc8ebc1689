B=/work/main/build/openmpi
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
tag=$1; shift
for np in ${NPS:-8 4}; do
$B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench --suite sweep --bytes ${BYTES:-64K} --patterns one-late,staircase,uniform --delays ${DELAYS:-0,10tau} --iterations ${IT:-30} --warmup 8 --collective allreduce --algorithms ${ALGS:-native,arrival_chain,predicted_scatter,auto} --json $tag-np$np.json > $tag-np$np.log 2>&1
done
