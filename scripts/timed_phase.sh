#!/usr/bin/env bash
# scripts/timed_phase.sh NAME COMMAND...: run one phase of `make test` and print its wall time, pass or fail.
set -u
name="$1"; shift
echo "== $name"
start=$(date +%s)
"$@"
rc=$?
echo "== $name: $(( $(date +%s) - start )) s$([ "$rc" = 0 ] || echo ", failed (exit $rc)")"
exit "$rc"
