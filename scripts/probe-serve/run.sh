#!/bin/sh
# usage: run.sh BIN [GROUP ...]
exec python3 "$(dirname "$0")/probe.py" "$@"
