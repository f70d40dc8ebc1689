B=/work/main/build/openmpi
ompi="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
tag=$1; shift
for np in ${NPS:-4 8}; do
$B/bin/papshim-run --emulate-network 1gbit -- $ompi -n $np $B/bin/papshim-bench --suite sweep --bytes ${BYTES:-128K,256K,512K,1M} --patterns one-late,staircase --delays 10tau --iterations ${IT:-30} --warmup 8 --collective allreduce --algorithms ${ALGS:-native,predicted_scatter,scatter_handback} --json $tag-np$np.json > $tag-np$np.log 2>&1
done
