#!/usr/bin/env bash
# The golden tests in tests/golden/pending/: expected outputs written to
# gdb's behaviour that ptdbg does not match yet.  Move a case to
# tests/golden/ when it passes.
d=$(cd "$(dirname "$0")" && pwd)
while [ ! -f "$d/golden.sh" ] && [ "$d" != / ]; do d=$(dirname "$d"); done
top=$(cd "$d/../.." && pwd)
GOLDEN=$top/tests/golden/pending exec bash "$d/golden.sh" "$@"
