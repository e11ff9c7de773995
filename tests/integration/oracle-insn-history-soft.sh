#!/usr/bin/env bash
# oracle-insn-history.sh with the soft recorder on every span, including those the
# passing run keeps to step (known to fail: a breakpoint on the
# fall-through or target of a branch the soft recorder emulates is not
# reported, so the span's second breakpoint is run past).
d=$(cd "$(dirname "$0")/.." && pwd)
METHODS=soft exec bash "$d/oracle-insn-history.sh" "$@"
