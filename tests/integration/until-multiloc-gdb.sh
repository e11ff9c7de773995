#!/usr/bin/env bash
# until and advance to a location with several places (testprogs/multiloc:
# clamp exists only inlined, in first and in second) stop at the first
# place reached, showing the inlined function there as gdb's bp_until
# does ("clamp (v=1) at multiloc.c:17" with second as its caller), live
# and backward in the recorded past (gdb record full; ptdbg's past
# arguments may be <unavailable>, which past_args allows).
. "$(dirname "$0")/lib.bash"
need_prereqs multiloc
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' | normalize
}

compare() {
	local name=$1 want=$2
	ptdbg_batch -- "$TESTPROGS/multiloc" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/multiloc" | norm >"$TMPDIR/$name.gdb"
	past_args "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" || die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines as gdb's"
}

# the second copy is the first reached from second()
CMDS=('break second' run 'advance clamp' bt 'advance clamp' bt)
compare advance '^#1  second (n=0) at multiloc.c:45$'
CMDS=('break second' run 'until clamp' bt)
compare until '^clamp (v=1) at multiloc.c:17$'
# from main: first's copy, then second's
CMDS=('break main' run 'advance clamp' bt 'advance clamp' bt 'advance clamp' bt)
compare main '^#1  first (n=0) at multiloc.c:35$'
# backward through the recording: the latest place first
CMDS=('break main' run record "break $(line_of multiloc.c 'printf(')" continue reverse-stepi
	'set exec-direction reverse' 'advance clamp' bt 'advance clamp' bt)
compare past '^#1  first (n=.*) at multiloc.c:35$'
