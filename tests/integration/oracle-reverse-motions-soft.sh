#!/usr/bin/env bash
# oracle-reverse-motions.sh with the soft recorder on every span, including those the
# plain run keeps to step: every span recorded with the soft recorder
# (this caught breakpoints on the target of an emulated branch).
d=$(cd "$(dirname "$0")" && pwd)
METHODS=soft exec bash "$d/oracle-reverse-motions.sh" "$@"
