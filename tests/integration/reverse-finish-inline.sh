#!/usr/bin/env bash
# reverse-finish with an outer frame selected, against gdb 13 record full
# (issue 14), on testprogs/inlstep-O2 (scale inlined twice into twice,
# twice inlined into work's loop, leaf a real call inside scale): with an
# inlined frame selected (up, frame N) gdb steps back out of THAT frame
# into its caller, also when it belongs to an outer real frame (leaf's
# caller); with a real frame selected it runs back to the innermost
# function's entry (finish_backward); with the outermost frame selected
# it refuses.  Breakpoints met on the way stop it.  Frame arguments are
# left out of the comparison (values-past.sh compares what the past has).
. "$(dirname "$0")/lib.bash"
need_prereqs inlstep-O2
need_gdb

norm() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go backward to insn number' -e '^Go forward to insn number' |
		sed -E -e 's/^((Temporary )?[Bb]reakpoint [0-9.]+, )?([A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1\3 () at /' \
			-e 's/^(#[0-9]+ +(0x[0-9a-f]+ in )?[A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1 () at /'
}

compare() {
	local name=$1
	gdb_batch -- "$TESTPROGS/inlstep-O2" | norm >"$TMPDIR/$name.gdb"
	ptdbg_batch -- "$TESTPROGS/inlstep-O2" | norm >"$TMPDIR/$name.ptdbg"
	[ "${PIPESTATUS[0]}" -le 1 ] || die "$name: ptdbg crashed"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	fi
	note "$name: $(grep -c . "$TMPDIR/$name.ptdbg") lines as gdb's"
}

store=$(line_of inlstep.c 'sink = y;')
start=(break\ work run record)

# 1. In leaf: the inlined scale (frame 1, of the real frame work) selected
#    goes back to scale's call in twice; then twice (frame 2, inlined in
#    work) selected, which runs back into the earlier leaf call; main
#    (the outermost) refused.
CMDS=("${start[@]}" 'break leaf' continue continue bt up reverse-finish bt 'up 1' reverse-finish bt
      'frame 1' reverse-finish bt 'frame 2' reverse-finish)
compare outer-real
qgrep -x 'twice () at inlstep.c:31' "$TMPDIR/outer-real.ptdbg" ||
	die "reverse-finish with scale selected did not stop in twice"

# 2. In scale (frame 0 inlined): twice selected (frame 1, of the same real
#    frame) steps back out of twice and meets the breakpoint's other copy;
#    work selected (a real frame) runs back to the innermost function's
#    entry, as gdb's.
CMDS=("${start[@]}" "break $store" continue continue bt up reverse-finish bt)
compare inline-frame0
CMDS=("${start[@]}" "break $store" continue continue 'frame 2' reverse-finish bt)
compare real-frame0
CMDS=("${start[@]}" "break $store" continue continue continue 'delete' 'frame 1' reverse-finish bt
      'up' reverse-finish bt)
compare inline-frame0-nobp
exit 0
