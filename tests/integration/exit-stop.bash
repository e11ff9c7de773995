# Helpers for the stop-before-exit tests (record-exit-pmu.sh,
# record-exit-sysexit.sh; sourced after lib.bash, not a test itself).
#
# exit_oracle NAME METHOD BREAK PROG [ARGS...]: gdb 13 record full and
# ptdbg (recording with METHOD; pt and bts on the simulated PMU) break at
# BREAK, record and continue until the program is stopped before its
# exit syscall.  Both must say why in the same words, stop at the same
# pc, hold the same number of instructions and the same pcs (gdb's log
# reverse-stepped one instruction at a time, ptdbg's instruction
# history), and be stopped, not exited.  gdb's reference is made once per
# NAME.
exit_oracle() {
	local name=$1 m=$2 bp=$3 gl pl gq pq gn pn gpc ppc sim gs
	shift 3
	gl=$TMPDIR/$name.gdblog
	pl=$TMPDIR/$name.$m.log
	if [ ! -s "$TMPDIR/$name.gdbpcs" ]; then
		CMDS=("break $bp" run 'record full' continue 'echo STOPPED-AT\n' 'p/x $pc' 'info record'
		      "source $GDB_REVPCS" "reverse-pcs $TMPDIR/$name.gdbpcs")
		LD_BIND_NOW=1 gdb_batch -- "$@" >"$gl"
		grep -q '^Process record: inferior program stopped\.$' "$gl" ||
			{ cat "$gl" >&2; die "$name: gdb did not stop before the exit"; }
		[ -s "$TMPDIR/$name.gdbpcs" ] || { cat "$gl" >&2; die "$name: gdb wrote no pcs"; }
		# its question (not printed with confirm off, as gdb_batch has it)
		gdb -nx -batch -ex 'set pagination off' -ex "break $bp" -ex run -ex 'record full' \
			-ex continue --args "$@" >"$gl.q" 2>&1
	fi
	sim=
	case $m in pt | bts) sim=$m ;; esac
	CMDS=("break $bp" run "record $m" continue 'echo STOPPED-AT\n' 'p/x $pc' 'info record'
	      'set record instruction-history-size unlimited' 'echo HISTORY-LISTING\n'
	      'record instruction-history /f' 'info threads')
	LD_BIND_NOW=1 PTDBG_SIMULATE_PMU=$sim ptdbg_batch -- "$@" >"$pl" ||
		{ cat "$pl" >&2; die "$name ($m): ptdbg failed"; }
	# gdb asks "... It will make the program exit.  Do you want to stop
	# the program?"; ptdbg says the first part, then what gdb says
	gq=$(sed -n 's/^\(The next instruction is syscall [a-z_]*\.  It will make the program exit\.\)  Do you want.*/\1/p' "$gl.q")
	pq=$(grep -m 1 '^The next instruction is syscall' "$pl")
	[ -n "$gq" ] && [ "$gq" = "$pq" ] ||
		{ cat "$pl" >&2; die "$name ($m): ptdbg says '$pq', gdb '$gq'"; }
	grep -A3 -x "$pq" "$pl" | qgrep -x 'Process record: inferior program stopped.' ||
		{ cat "$pl" >&2; die "$name ($m): no 'Process record: inferior program stopped.'"; }
	# "Program stopped.", or once the program has had threads gdb's
	# 'Thread N "name" stopped.'
	gs=$(grep -m 1 -E '^(Program|Thread [0-9]+ .*) stopped\.$' "$gl")
	[ -n "$gs" ] || { cat "$gl" >&2; die "$name: gdb printed no 'Program stopped.'"; }
	grep -qxF "$gs" "$pl" || { cat "$pl" >&2; die "$name ($m): no '$gs'"; }
	grep -q 'exited\|^The recorded history is kept' "$pl" &&
		{ cat "$pl" >&2; die "$name ($m): the program exited instead"; }
	gpc=$(stopped_at "$gl")
	ppc=$(stopped_at "$pl")
	[ -n "$gpc" ] && [ "$gpc" = "$ppc" ] || die "$name ($m): stopped at ${ppc:-no pc}, gdb at ${gpc:-no pc}"
	gn=$(sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p' "$gl")
	pn=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$pl" | head -n 1)
	[ -n "$gn" ] && [ "$gn" = "$pn" ] ||
		die "$name ($m): instructions recorded up to the exit: gdb ${gn:-none}, ptdbg ${pn:-none}"
	sed -n '/^HISTORY-LISTING$/,$p' "$pl" | awk '/^[0-9]+\t/ {
		if (match($0, /0x[0-9a-f]+/)) {
			a = substr($0, RSTART + 2, RLENGTH - 2); sub(/^0+/, "", a); print a
		} else print "ITEM: " $0
	}' >"$TMPDIR/$name.$m.pcs"
	compare_pcs "$TMPDIR/$name.gdbpcs" "$TMPDIR/$name.$m.pcs" "$name ($m)" ||
		die "$name ($m): the recorded instructions differ from gdb record full's"
}
