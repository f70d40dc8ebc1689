#!/bin/sh
# Quantum ESPRESSO (Debian's pw.x 6.7 on Open MPI) under auto's small Allreduce window, 4 ranks
# on the VM's 2 cores (shared cores: auto runs symmetric_shm for Allreduces up to 1 KiB on QE's
# duplicate of the world once that has made 1024 of them). examples/qe/si8.scf.in, shared memory.
# 1. Whole runs: app_timing.py, native and auto interleaved, QE's own wall clock, total energy.
# 2. Per call: traced runs, profile mode (native calls) and auto alternately; percall.py takes
#    the Allreduces of at most 1 KiB with a predefined op on QE's 4-rank communicators.
# Usage: run.sh OUT   (from this directory; build in ../../../build/openmpi; needs
#        apt-get install quantum-espresso quantum-espresso-data)
out=${1:-/tmp/qe-auto-small}
top=$(cd ../../.. && pwd)
lib=$top/build/openmpi/lib/libpapshim.so
OMPI="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
mkdir -p "$out/run"
python3 "$top/examples/apps/app_timing.py" --cwd "$out/run" --np 4 --reps ${REPS:-10} --shim "$lib" \
  --mpiexec "$OMPI" --app "pw.x -in $top/examples/qe/si8.scf.in" --result "^!.*total energy.*$" \
  --timer "PWSCF *:.*CPU +(?:(?P<minutes>[0-9]+)m *)?(?P<seconds>[0-9.]+)s WALL" \
  --config native:si8 --config auto:si8:ALLREDUCE=auto,REDUCE=auto,ALLGATHER=auto,ALLGATHERV=auto \
  --csv "$out/whole-runs.csv"
cd "$out/run" || exit 1
for i in 1 2 3; do
  for m in profile auto; do
    if [ $m = profile ]; then env="-x PAPSHIM_MODE=profile"; else env="-x PAPSHIM_ALLREDUCE=auto -x PAPSHIM_REDUCE=auto"; fi
    rm -rf "$out/trace-$m-$i"
    $OMPI -n 4 -x LD_PRELOAD=$lib $env -x PAPSHIM_TRACE_DIR="$out/trace-$m-$i" pw.x -in "$top/examples/qe/si8.scf.in" \
      > "$out/pw-$m-$i.out" 2>&1
    grep -E "^!" "$out/pw-$m-$i.out"
  done
done
python3 "$top/docs/data/qe-auto-small-1205/percall.py" "$out"/trace-profile-1 "$out"/trace-auto-1 "$out"/trace-profile-2 \
  "$out"/trace-auto-2 "$out"/trace-profile-3 "$out"/trace-auto-3
