#!/bin/sh
# A duplicate of the world per object, `calls` 8-byte Allreduces on each, 4 ranks on 2 cores, Open MPI:
# native, papshim auto at the build before (context at a duplicate's first small call) and after.
# Build: mpicc.openmpi -O2 dup_loop.c -o dup_loop; the build before: git worktree add /tmp/old 310afc6,
# cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=RelWithDebInfo, --target papshim.
# Usage: [ROUNDS="1 2 3"] [CALLS="10 100 1000 4000"] run.sh > out.txt; python3 summary.py out.txt ...
# (rounds 1-8 ran in a fixed order native, before, after; from round 11 the order rotates).
# Prints: round, calls per object, variant, microseconds per object (rank 0).
OMPI="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mtl ^ofi,psm,psm2"
NEW=${NEW:-$(cd ../../.. && pwd)/build/openmpi/lib/libpapshim.so}
OLD=${OLD:-/tmp/old/build/lib/libpapshim.so}
for round in ${ROUNDS:-1 2 3}; do
  for calls in ${CALLS:-10 100 1000 4000}; do
    objects=$([ $calls -ge 1000 ] && echo 20 || echo 200)
    # The order rotates with the round: a fixed order favoured the later variants.
    case $((round % 3)) in 0) order="native before after";; 1) order="before after native";; *) order="after native before";; esac
    for v in $order; do
      case $v in
        native) pre="";;
        before) pre="-x LD_PRELOAD=$OLD -x PAPSHIM_ALLREDUCE=auto";;
        after) pre="-x LD_PRELOAD=$NEW -x PAPSHIM_ALLREDUCE=auto";;
      esac
      printf "%s %s %s %s\n" "$round" "$calls" "$v" "$($OMPI -n 4 $pre ./dup_loop $objects $calls | sed 's/per object: \([0-9.]*\) us.*/\1/')"
    done
  done
done
