#!/usr/bin/env bash
# Hardware watchpoints and breakpoints through ptdbg-server (Z1-Z4 on the
# x86 debug registers) against gdb 13's own native run of the same
# commands on testprogs/watch: `watch counter` stops after each write
# with the old and new value (also in a thread created later), `rwatch
# probe` at its read, `hbreak worker` in the new thread, and the program
# ends normally.  Once with no recording, once recorded with soft (the
# recorder goes on past each stop; as with gdb's record full the recorded
# program also stops before its exit: "Program stopped.").
. "$(dirname "$0")/lib.bash"

need_prereqs watch
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

CMDS=('break main' 'WHERE' 'watch counter' 'rwatch probe' 'hbreak worker'
      continue continue continue continue continue continue)
ex=(-ex 'set pagination off' -ex 'set confirm off')
run_ex() { # WHERE-REPLACEMENT
	local c out=()
	for c in "${CMDS[@]}"; do
		if [ "$c" = WHERE ]; then out+=(-ex "$1"); else out+=(-ex "$c"); fi
	done
	printf '%s\n' "${out[@]}"
}

# The stops as gdb reports them: what hit, the values, where.  Thread
# names differ (native "Thread 0x... (LWP n)", remote "Thread p.t") and
# are left out; gdb's own lines about threads coming and going too.  The
# program's own output line goes to the same file at a moment of its own
# (its stdout and gdb's are separate streams): it is compared apart.
stops() {
	# (a recorded program's stop before its exit, as gdb record full's,
	# is no watchpoint's: it is left out, up to its source line, and
	# counted apart)
	sed -n '/^Breakpoint 1, main /,$p' "$1" | sed -E '/^(Program|Thread [0-9]+ .*) stopped\.$/,/^[0-9]+'$'\t''/d' |
		grep -E '^(Breakpoint 1, |Hardware (read |access \()?watchpoint [0-9]+: |Old value = |New value = |Value = |Thread [0-9]+ "watch" hit |main \(\) at |worker \(|0x[0-9a-f]+ in |[0-9]+'$'\t''|\[Inferior 1 \(process [0-9]+\) exited)' |
		sed -E 's/process [0-9]+/process PID/'
	grep -o 'counter=[0-9]* r=[0-9]*' "$1"
}

mapfile -t nat < <(run_ex run)
gdb -nx -batch "${ex[@]}" -ex 'set startup-with-shell off' "${nat[@]}" "$TESTPROGS/watch" \
	>"$TMPDIR/native.out" 2>&1
stops "$TMPDIR/native.out" >"$TMPDIR/native.stops"
cat "$TMPDIR/native.out" >&2
# the oracle itself must show what this test is about
[ "$(grep -c '^Hardware watchpoint 2: counter$' "$TMPDIR/native.stops")" = 3 ] ||
	die "gdb's native run does not stop at the three writes (no debug registers here?)"
grep -q '^Hardware read watchpoint 3: probe$' "$TMPDIR/native.stops" || die "native: no read stop"
grep -q '^Thread 2 "watch" hit Breakpoint 4, worker' "$TMPDIR/native.stops" || die "native: no hbreak"

for opts in "" "--method soft --record"; do
	mapfile -t rem < <(run_ex continue)
	[ -n "$opts" ] && rem+=(-ex continue)
	# shellcheck disable=SC2086
	gdb -nx -batch "${ex[@]}" -ex "target remote | $SERVER $opts --stdio -- $TESTPROGS/watch" \
		"${rem[@]}" >"$TMPDIR/stub.out" 2>&1
	cat "$TMPDIR/stub.out" >&2
	stops "$TMPDIR/stub.out" >"$TMPDIR/stub.stops"
	diff -u "$TMPDIR/native.stops" "$TMPDIR/stub.stops" >&2 ||
		die "the stops through ptdbg-server ${opts:-(no recording)} differ from gdb's native ones"
	[ "$(grep -Ec '^(Program|Thread [0-9]+ .*) stopped\.$' "$TMPDIR/stub.out")" = "$([ -n "$opts" ] && echo 1 || echo 0)" ] ||
		die "${opts:-no recording}: the stops before the exit are not one per recording"
	note "ok ${opts:-no recording}: $(grep -c . "$TMPDIR/stub.stops") lines as natively"
done
