#!/usr/bin/env bash
# Ctrl-C (SIGINT to ptdbg) interrupts `continue` of a program ptdbg
# launched in -batch, as gdb does ("Program received signal SIGINT,
# Interrupt."); the commands after it run on the stopped program, which is
# then killed at the end of the batch as gdb kills it.  (A recorded
# attached program's: attach-leave.sh.)
# testprogs/rpt_spin spins until SIGUSR2 and says "spinning" once its
# loop runs, which it can only do while `continue` runs it: that line,
# read from ptdbg's output, is when the SIGINT is sent (no sleeps).
# Recorded by the soft or step recorder too: their own traps and steps
# must not swallow the interrupt (a PTRACE_INTERRUPT that meets a pending
# trap is dropped by the target for that trap, which the recorder owns);
# each runs several times, as the race showed in about one run of three.
. "$(dirname "$0")/lib.bash"
need_prereqs rpt_spin

# interrupt OUT ptdbg-args...: runs ptdbg with its output to a fifo, sends
# SIGINT once the program said "spinning", and waits for ptdbg to end.
interrupt() {
	local out=$1 line pid
	shift
	rm -f "$out.fifo"
	mkfifo "$out.fifo"
	"$PTDBG" "$@" >"$out.fifo" 2>&1 &
	pid=$!
	on_exit "kill -9 $pid 2>/dev/null"
	exec 5<"$out.fifo"
	: >"$out"
	while IFS= read -r -t 120 -u 5 line; do
		printf '%s\n' "$line" >>"$out"
		[ "$line" = spinning ] && break
	done
	[ "$line" = spinning ] || { cat "$out" >&2; die "the program did not start spinning"; }
	kill -INT "$pid"
	# the rest of the output, up to ptdbg's exit (a guard, not a timing)
	local st=0
	while IFS= read -r -t 120 -u 5 line || { st=$?; false; }; do
		printf '%s\n' "$line" >>"$out"
	done
	exec 5<&-
	if [ "$st" -gt 128 ]; then
		# no output and no exit for 2 minutes: it hangs (seen as the
		# recording going on after the SIGINT); do not wait for it
		kill -9 "$pid" 2>/dev/null
		cat "$out" >&2
		die "ptdbg hung after the SIGINT ($*)"
	fi
	wait "$pid"
	echo "[exit $?]" >>"$out"
}

for rec in "" "record soft" "record soft" "record soft" "record soft" \
	"record step" "record step" "record step"; do
	cmds=(-ex 'break main' -ex run)
	[ -n "$rec" ] && cmds+=(-ex "$rec")
	cmds+=(-ex continue -ex 'echo AFTER\n' -ex 'info threads')
	[ -n "$rec" ] && cmds+=(-ex 'info record')
	interrupt "$TMPDIR/launch" -batch "${cmds[@]}" "$TESTPROGS/rpt_spin"
	note "ptdbg (launched, ${rec:-live}):"; note "$(cat "$TMPDIR/launch")"
	grep -qx 'Program received signal SIGINT, Interrupt.' "$TMPDIR/launch" ||
		die "${rec:-live}: continue was not interrupted"
	sed -n '/^AFTER$/,$p' "$TMPDIR/launch" | qgrep -E '^\* 1 .*( in |\) at )' ||
		die "${rec:-live}: the commands after the interrupt did not run on the stopped program"
	if [ -n "$rec" ]; then
		grep -q '^Recorded [0-9]* instructions' "$TMPDIR/launch" || die "the recording is lost"
	fi
	grep -qx '\[exit 0\]' "$TMPDIR/launch" || die "${rec:-live}: ptdbg did not end normally"
done
exit 0
