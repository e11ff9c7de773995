#!/usr/bin/env bash
# Inlined functions are frames of their own (DW_TAG_inlined_subroutine,
# issue 14): in -O2 code with always_inline functions (testprogs/inline,
# square inlined into sum_squares inlined into compute), bt shows square,
# sum_squares and compute -- the outer ones at their call sites' lines,
# without addresses -- and a stop names the innermost inlined function,
# live and in the recorded past (stepi forward and back through the
# inlined code), as gdb 13 record full shows them.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs inline-O2
need_gdb

a=$(bp_addr inline-O2 square) || exit 1
CMDS=("break *$a" run "echo @@ live\n" bt record)
for i in 1 2 3 4 5 6 7 8; do CMDS+=(stepi "echo @@ stepi $i\n" bt); done
for i in 1 2 3 4; do CMDS+=(reverse-stepi "echo @@ reverse-stepi $i\n" bt); done
KEEP_NAMES=1 compare_frames inline-frames inline-O2
# the inlined frames are there (names kept in the comparison)
grep -A3 '^@@ live' "$TMPDIR/inline-frames.ptdbg.frames" | tr '\n' ' ' |
	grep -q '^@@ live 0  inline.c:[0-9]* square 1  inline.c:[0-9]* sum_squares 2  inline.c:[0-9]* compute ' ||
	die "bt shows no inlined frames: $(cat "$TMPDIR/inline-frames.ptdbg.frames")"
exit 0
