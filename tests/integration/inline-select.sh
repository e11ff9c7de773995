#!/usr/bin/env bash
# frame, up and down count the frames of inlined functions as bt numbers
# them (DW_TAG_inlined_subroutine), as gdb 13 does on testprogs/inline-O2
# (square inlined into sum_squares inlined into compute, called by main):
# an inlined caller's frame shows its call site's line without an
# address; up and down stop at the ends with gdb's messages; frame N
# beyond the last says "No frame at level N."; frame function NAME
# selects NAME's innermost frame.  Arguments are left out:
# ptdbg does not show the arguments of inlined functions' frames yet (see
# the man page), and the real frame here (main) has none.
. "$(dirname "$0")/lib.bash"
need_prereqs inline-O2
need_gdb
prog=$TESTPROGS/inline-O2

noargs() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' |
		sed -E -e 's/^(Breakpoint [0-9]+, )?([A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1\2 () at /' \
			-e 's/^(#[0-9]+ +(0x[0-9a-f]+ in )?[A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1 () at /'
}

a=$(bp_addr inline-O2 square) || exit 1
CMDS=("break *$a" run bt up up up up "frame 1" down "frame 2" frame "up 10" "down 10" "frame 9"
      "list 31,31")
pt=$(ptdbg_batch -- "$prog" 2>&1 | noargs) || die "ptdbg failed"
gd=$(gdb_batch -- "$prog" 2>&1 | noargs)
note "ptdbg:"; note "$pt"
echo "$pt" | qgrep -x '#2  compute () at inline.c:31' || die "up does not reach compute's inlined frame"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "frame selection over inlined frames differs from gdb"

# frame function NAME (gdb 13): the innermost frame of that function; a
# function on no frame and an unknown one refused with gdb's messages.
# For a function whose code holds inlined frames gdb takes the innermost
# frame whose pc lies in it (frame function compute selects #0, square's
# frame), ptdbg the frame that bt shows with that name: compared with gdb
# on main only, the inlined ones checked here.
CMDS=("break *$a" run "frame function main" "frame function puts" "frame function nosuch"
      "frame function" "frame function main")
pt=$(ptdbg_batch -- "$prog" 2>&1 | noargs) || die "ptdbg failed"
gd=$(gdb_batch -- "$prog" 2>&1 | noargs)
note "ptdbg:"; note "$pt"
echo "$pt" | qgrep -x 'No frame for function "puts".' || die "frame function puts: no refusal"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "frame function differs from gdb"
CMDS=("break *$a" run "frame function compute" "frame function sum_squares" "frame function square")
pt=$(ptdbg_batch -- "$prog" 2>&1 | noargs) || die "ptdbg failed"
printf '%s\n' '#2  compute () at inline.c:31' '#1  sum_squares () at inline.c:22' \
	'#0  square () at inline.c:12' >"$TMPDIR/want"
echo "$pt" | grep '^#' | diff -u "$TMPDIR/want" - >&2 || die "frame function over inlined frames"
exit 0
