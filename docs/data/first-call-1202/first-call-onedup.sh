#!/bin/bash
# first-call.sh at p = 8, twice: BEFORE a build of 34fb003 (the planner's two blocking duplicates), AFTER of the commit
# after it (one duplicate for the exchange and the planned calls' messages); tags twodup/onedup, then twodupB/onedupB.
# summarise.py twodup onedup twodupB onedupB reads them.
for set in "" B; do
  BEFORE=${BEFORE:-/tmp/m12} AFTER=${AFTER:-/tmp/m11} BEFORE_TAG=twodup$set AFTER_TAG=onedup$set NPS=8 \
    "$(dirname "$0")/first-call.sh"
done
