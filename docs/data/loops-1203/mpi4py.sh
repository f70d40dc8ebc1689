#!/bin/bash
# An unmodified mpi4py program whose one Allreduce per iteration carries 2 or 4 MiB (int32 sums), with one rank
# persistently late or a staircase, p = 8, one rank per emulated 1 Gbit/s node, Open MPI: native (papshim-run
# --mode off), auto, and the predicted scatter named, interleaved by app_timing.py. The timer is rank 0's whole
# loop (loop_s); "result" shows rank 0's mean time inside MPI_Allreduce (timing_us). Usage: mpi4py.sh COUNT REPS
B=${B:-/tmp/final} SRC=${SRC:-/work/main}
count=${1:-1048576} reps=${2:-3}
cfg=()
for v in "one-late:7:200" "staircase:25"; do
  var="$v --count $count --iterations 30 --collectives allreduce"
  cfg+=(--config "native:$var" --config "auto:$var:ALLREDUCE=auto" --config "predicted_scatter:$var:ALLREDUCE=predicted_scatter")
done
python3 $SRC/examples/apps/app_timing.py --wrap "$B/bin/papshim-run --emulate-network 1gbit" \
  --mpiexec "mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2" --np 8 --reps $reps \
  --app "/usr/bin/python3 $SRC/examples/python/imbalance.py --pattern {variant}" \
  --timer "loop_s ([0-9.]+)" --result "^timing_us .*$" --csv mpi4py-$count.csv "${cfg[@]}"
