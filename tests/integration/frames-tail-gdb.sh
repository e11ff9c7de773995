#!/usr/bin/env bash
# frame, up and down count gdb's tail call frames, as bt numbers them
# (testprogs/tailcall-O2: leaf <- middle <- top by jumps, so bt shows
# middle and top as tail call frames), live and in the recorded past
# (gdb record full), and finish from a tail call frame returns where gdb
# does, with no value; and libraries' source files are named as gdb
# names them (glibc's "./nptl/pthread_kill.c", relative compilation
# directories kept) in frame lines, list and info source.  Arguments
# differ where DIFFERENCES FROM GDB says (entry values: gdb's
# "x=x@entry=15", a tail call frame's arguments), so those are compared
# without them.
. "$(dirname "$0")/lib.bash"
need_prereqs tailcall-O2 abort
need_gdb

# frame lines without their arguments; gdb's own noise dropped
norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/ (\([^()]\|([^()]*)\)*) at / (ARGS) at /' | normalize
}

compare() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2 ||
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

CMDS=('break leaf' run bt up up up up down 'frame 2' 'frame 1' 'frame 4' down down down
	'frame 1' finish bt)
compare live tailcall-O2 '^#2  0x[0-9a-f]* in top (ARGS) at tailcall.c:29$'
qgrep -e '^Initial frame selected; you cannot go up.$' "$TMPDIR/live.ptdbg" || die "live: up past main"

CMDS=('break main' run record 'break leaf' continue bt up up 'frame 3' down 'frame 1'
	'reverse-stepi' bt 'frame 2' up)
compare past tailcall-O2 '^#1  0x[0-9a-f]* in middle (ARGS) at tailcall.c:23$'

CMDS=(run bt 'frame 1' 'info source' up 'info source' up list 'frame 3' down)
compare libc abort '^#1  0x[0-9a-f]* in __pthread_kill_internal (ARGS) at ./nptl/pthread_kill.c:78$'
qgrep -e '^Current source file is ./nptl/pthread_kill.c$' "$TMPDIR/libc.ptdbg" || die "libc: info source"
