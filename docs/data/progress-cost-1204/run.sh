#!/bin/bash
# What MPICH pays for papshim's finalize progress (interpose/finalize_progress.cpp, 9015bbb): its
# ucp_worker_progress, ucp_request_is_completed and ucp_request_release wrappers sit on every
# poll of MPICH's progress loop, in every mode. papshim-bench's overhead suite (p = 2, a core per
# rank) with this checkout's libpapshim ("new") against c4747ba's ("base", the commit before
# 9015bbb), alternating; its `native` rows carry only the wrappers' cost. The fastpath-1204
# script does the runs.
# Usage: BASE=/path/to/c4747ba/checkout run.sh   (from this directory; BASE built in build-mpich)
MPIS=mpich exec ../fastpath-1204/run.sh
