#!/usr/bin/env bash
# oracle-insn-history.sh with the soft recorder on every span, including those the
# plain run keeps to step: every span recorded with the soft recorder
# (this caught breakpoints on the target of an emulated branch).
d=$(cd "$(dirname "$0")" && pwd)
METHODS=soft exec bash "$d/oracle-insn-history.sh" "$@"
