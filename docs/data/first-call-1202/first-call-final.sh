#!/bin/bash
# first-call.sh again at p = 8 only: BEFORE a build of f5122db, FINAL of 843d9b2 (the world
# node map, the planner's duplicates blocking), tags before2/final.
BEFORE=${BEFORE:-/tmp/m7} AFTER=${FINAL:-/tmp/m10} BEFORE_TAG=before2 AFTER_TAG=final NPS=8 \
  exec "$(dirname "$0")/first-call.sh"
