#!/usr/bin/env bash
# The history before an exec is the old program's: testprogs/exec records
# from its main, execs fib and stops at fib's main; then, in the shell,
# for every method and trace format (pt and bts on the simulated PMU),
#  - record goto begin is at exec.c's printf line, and x/2i and info
#    symbol there give what gdb reads in the exec file itself (its bytes
#    and names, not fib's, which has other code at the same addresses);
#  - the call history names the old stretch with the old program's
#    symbols (segment 2 is the function exec's main calls there, as gdb's
#    disassembly names it) and the new stretch with the new one's (its last
#    segment is fib's main);
#  - the new program's first instruction has no caller (bt: one frame),
#    reverse-stepi goes from it to the execve syscall, reverse-step to the
#    old program's code with exec's main calling execl at exec.c's line,
#    and reverse-continue goes back to exec.c's printf;
#  - (soft pt, step) the call history up to the execve is the one seen
#    when stopped at its entry, and maint check calls agrees;
# and through ptdbg-server with gdb 13 as the client (methods step and
# soft), reverse-continue from fib's main to a breakpoint that only the old
# program reached, where the stub serves the old program's code bytes and
# reverse-stepi and stepi go on.  Before, the old stretch was shown with
# fib's symbols and code bytes, and reverse motions across the exec failed
# with "cannot decode the recorded instruction".
. "$(dirname "$0")/lib.bash"
need_prereqs exec fib
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

exec_line=$(line_of exec.c 'printf("exec: before') || exit 1
execl_line=$(line_of exec.c 'execl(path') || exit 1
bp=$(bp_addr exec "$exec_line") || exit 1
fib_line=$(line_of fib.c 'int n = argc') || exit 1

# What the exec file holds at $bp (gdb reads the file: no process).
gdb -nx -batch -ex "x/2i $bp" -ex "info symbol $bp" "$TESTPROGS/exec" >"$TMPDIR/gdb.static" 2>&1
ref_insns=$(grep -E '^ +0x' "$TMPDIR/gdb.static" | sed -E 's/^ +//')
ref_sym=$(grep ' in section ' "$TMPDIR/gdb.static")
callee=$(sed -n 's/.*call .*<\(.*\)>$/\1/p' "$TMPDIR/gdb.static")
[ "$(printf '%s\n' "$ref_insns" | wc -l)" = 2 ] && [ -n "$ref_sym" ] && [ -n "$callee" ] ||
	{ cat "$TMPDIR/gdb.static" >&2; die "gdb could not read exec at $bp"; }

# The first instruction after the exec: the segment after the execve's.
first_after_exec() {
	awk -F'\t' '/execve\tinst /{ getline; split($3, a, /[ ,]/); print a[2]; exit }' "$1"
}

failed=0
for mf in "step " "soft " "soft pt" "step pt" "pt " "bts "; do
	read -r m f <<<"$mf"
	what="record $m${f:+ $f}"
	# (pt and bts on the simulated PMU: free-running, no syscall stops)
	case $m in pt | bts) export PTDBG_SIMULATE_PMU=$m ;; *) unset PTDBG_SIMULATE_PMU ;; esac
	log=$TMPDIR/calls.$m.$f.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex "$what" -ex continue \
		-ex 'record function-call-history /i 1,100000' --args "$TESTPROGS/exec" >"$log" 2>&1
	qgrep "^Breakpoint 1, main (argc=2, .*) at ${fib_line%:*}:${fib_line#*:}$" "$log" ||
		{ cat "$log" >&2; die "$what: did not stop in fib's main"; }
	n=$(first_after_exec "$log")
	[ -n "$n" ] || { cat "$log" >&2; die "$what: no execve segment"; }
	log=$TMPDIR/past.$m.$f.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex "$what" -ex continue \
		-ex 'record goto begin' -ex 'echo X\n' -ex 'x/2i $pc' -ex 'echo S\n' -ex 'info symbol $pc' \
		-ex 'echo CALLS\n' -ex 'record function-call-history 1,2' -ex 'record function-call-history' \
		-ex 'record goto end' -ex 'echo LAST\n' -ex 'record function-call-history' \
		-ex "record goto $n" -ex 'echo BT\n' -ex bt -ex 'echo RSI\n' -ex reverse-stepi -ex 'x/i $pc' \
		-ex "record goto $n" -ex 'echo RS\n' -ex reverse-step -ex 'echo RSBT\n' -ex bt \
		-ex 'record goto end' -ex 'echo RC\n' -ex reverse-continue \
		--args "$TESTPROGS/exec" >"$log" 2>&1
	sect() { sed -n "/^$1\$/,/^[A-Z][A-Z]*\$/p" "$log" | sed '1d;/^[A-Z][A-Z]*$/d'; }
	bad() { note "$what: $*"; cat "$log" >&2; failed=1; }
	qgrep -E "^#0  main \(.*\) at exec\.c:${exec_line#*:}$" "$log" ||
		{ bad "record goto begin is not at $exec_line"; continue; }
	got=$(sect X | sed -E 's/^(=>)? +//')
	[ "$got" = "$ref_insns" ] || { bad "x/2i at the start: '$got', the exec file has '$ref_insns'"; continue; }
	got=$(sect S)
	[ "${got%% of *}" = "$ref_sym" ] && [[ $got == *"of $TESTPROGS/exec" ]] ||
		{ bad "info symbol at the start: '$got' (gdb: '$ref_sym' in exec)"; continue; }
	got=$(sect CALLS | awk -F'\t' 'NR <= 2 { print $2 }' | tr '\n' ' ')
	[ "$got" = "main $callee " ] || { bad "the call history starts with '$got', not 'main $callee'"; continue; }
	got=$(sect LAST | awk -F'\t' '/^[0-9]+\t/ { f = $2 } END { print f }')
	[ "$got" = main ] || { bad "the call history ends in '$got', not fib's main"; continue; }
	[ "$(sect BT | grep -c '^#')" = 1 ] ||
		{ bad "bt at the new program's first instruction shows frames of the old one"; continue; }
	sect RSI | qgrep -E '^=> 0x[0-9a-f]+ <[_A-Za-z]*execve\+[0-9]+>:	syscall' ||
		{ bad "reverse-stepi from the new program did not reach the execve syscall"; continue; }
	sect RSBT | qgrep -E "^#[1-9] .* in main \(.*\) at exec\.c:${execl_line#*:}$" ||
		{ bad "reverse-step from the new program did not go back into exec's execl call"; continue; }
	sect RC | qgrep -E "^main \(.*\) at exec\.c:${exec_line#*:}$" ||
		{ bad "reverse-continue did not go back to $exec_line"; continue; }
	! qgrep -i 'cannot decode\|cannot read code\|not available' "$log" || { bad "an error on the way"; continue; }
done

unset PTDBG_SIMULATE_PMU

# The call history of the old program does not change when the exec
# comes: up to the execve, the same segments as when stopped at its entry
# (whose segment then only grows), and the call log and the items give the
# same view.
for m in "soft pt" step; do
	log=$TMPDIR/prefix.${m// /}.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex "record $m" -ex 'break execve' -ex continue \
		-ex 'echo A\n' -ex 'record function-call-history /ic 1,100000' -ex 'delete 2' -ex continue \
		-ex 'echo B\n' -ex 'record function-call-history /ic 1,100000' -ex 'maint check calls' \
		--args "$TESTPROGS/exec" >"$log" 2>&1
	sed -n '/^A$/,/^B$/p' "$log" | grep -E '^[0-9]+	.*	inst ' | sed '$d' >"$TMPDIR/calls.A"
	sed -n '/^B$/,$p' "$log" | grep -E '^[0-9]+	.*	inst ' | head -n "$(wc -l <"$TMPDIR/calls.A")" >"$TMPDIR/calls.B"
	if [ "$(wc -l <"$TMPDIR/calls.A")" -lt 100 ] || ! qgrep -E '[	 ](__GI_)?execve	inst ' "$log" ||
		! diff -u "$TMPDIR/calls.A" "$TMPDIR/calls.B" >&2; then
		note "record $m: the old program's call history changed with the exec"
		cat "$log" >&2
		failed=1
	fi
	qgrep -E '^calls: [0-9]+ segments, identical' "$log" ||
		{ note "record $m: maint check calls"; grep '^calls' "$log" >&2; failed=1; }
done

# gdb through the stub: $bp ran only in the old program (fib's main is
# stopped before it).
for m in step soft; do
	log=$TMPDIR/stub.$m.log
	gdb -nx -batch -ex 'set pagination off' -ex 'set confirm off' \
		-ex "target remote | $SERVER --method $m --record --stdio -- $TESTPROGS/exec" \
		-ex 'break main' -ex continue -ex continue -ex delete -ex "break *$bp" \
		-ex reverse-continue -ex 'echo X\n' -ex 'x/2i $pc' -ex 'echo END\n' -ex delete \
		-ex reverse-stepi -ex 'echo RSI\n' -ex 'p/x $pc' -ex stepi -ex stepi -ex 'echo SI\n' -ex 'p/x $pc' \
		-ex 'echo END\n' >"$log" 2>&1
	bad() { note "stub ($m): $*"; cat "$log" >&2; failed=1; }
	qgrep -F "is executing new program: $TESTPROGS/fib" "$log" || { bad "no exec"; continue; }
	got=$(sed -n '/^X$/,/^END$/p' "$log" | grep -E '^(=>)? +0x' | sed -E 's/^(=>)? +//; s/ <[^>]*>:/:/; s/ <[^>]*>$//')
	want=$(printf '%s\n' "$ref_insns" | sed -E 's/ <[^>]*>:/:/; s/ <[^>]*>$//')
	[ "$got" = "$want" ] || { bad "the code at $bp in the past is '$got', not the exec file's '$want'"; continue; }
	rsi=$(sed -n '/^RSI$/{n;s/^\$[0-9]* = //p;}' "$log")
	si=$(sed -n '/^SI$/{n;s/^\$[0-9]* = //p;}' "$log")
	next=$(printf '%s\n' "$ref_insns" | sed -n '2s/^\(0x[0-9a-f]*\) .*/\1/p')
	[ -n "$rsi" ] && [ "$((rsi))" -lt "$((bp))" ] && [ "$((si))" = "$((next))" ] ||
		{ bad "reverse-stepi/stepi at $bp: $rsi, $si (want < $bp, then $next)"; continue; }
	! qgrep -i 'cannot decode' "$log" || { bad "an error on the way"; continue; }
done
[ "$failed" = 0 ] || die "the history before the exec is not the old program's"
echo ok
