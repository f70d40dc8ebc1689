#!/bin/bash
# OLD: an install of 085d7c6, NEW: of the rule's commit (cmake --install build/openmpi --prefix DIR).
# The steady state of a long loop: fresh.sh's jobs with 100 calls per point after 8.
NPS="5 9" ITERATIONS=100 WARMUP=8 exec "$(dirname "$0")/fresh.sh" "$@"
