#!/usr/bin/env bash
# Bad input on the command line and at the prompt: a nonexistent or
# non-executable program, -p with a pid that does not exist or is not a
# number, --method=bogus (must list the valid methods), an unknown option,
# and unknown commands typed at the prompt, after which the session must
# still work.  Each case checks the exact message and the exit status.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
failed=0

# expect NAME STATUS EXPECTED-OUTPUT -- ptdbg arguments...
expect() {
	local name=$1 want_rc=$2 want=$3 got rc
	shift 4
	got=$(cd "$TMPDIR" && "$PTDBG" "$@" 2>&1 </dev/null | normalize; exit "${PIPESTATUS[0]}")
	rc=$?
	if [ "$got" != "$want" ] || [ "$rc" != "$want_rc" ]; then
		note "--- $name: ptdbg $*"
		note "expected (exit $want_rc):"
		note "$want"
		note "got (exit $rc):"
		note "$got"
		failed=1
	else
		note "ok $name"
	fi
}

# A pid that is certainly not in use: above the kernel's pid_max.
nopid=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))

expect nonexistent-program 1 "/nonexistent/prog: No such file or directory.
No executable file specified.
Use the \"file\" or \"exec-file\" command." -- -batch -ex run /nonexistent/prog

expect attach-no-such-pid 1 "ptrace: No such process." -- -batch -p "$nopid"

# The session goes on after a failed attach, as gdb's does.
expect attach-then-command 0 "ptrace: No such process.
\$1 = 42" -- -batch -p "$nopid" -ex 'p 6*7'

expect attach-not-a-pid 1 "Illegal process-id: abc." -- -batch -p abc

out=$("$PTDBG" -batch --method=bogus "$TESTPROGS/fib" 2>&1)
rc=$?
if [ "$rc" != 1 ] || ! grep -q "^ptdbg: unknown recording method 'bogus' (valid: auto, .*step" <<<"$out"; then
	note "--- method-bogus: expected exit 1 and the list of valid methods, got (exit $rc):"
	note "$out"
	failed=1
else
	note "ok method-bogus"
fi

expect unknown-option 1 "ptdbg: unrecognized option '--bogus-option'
Use \`ptdbg --help' for a complete list of options." -- --bogus-option

# Unknown and malformed commands at the prompt (standard input, not a
# terminal, so no readline): each gets its error, the rest still runs.
got=$(printf '%s\n' frobnicate 'p 6*7' 'x/2x 0' backtrace 'break fib' run record stepi \
	'record instruction-history xyz' reverse-stepi 'p/x $pc' |
	(cd "$TMPDIR" && "$PTDBG" -q --method=step "$TESTPROGS/fib" 2>&1) | normalize)
want='Reading symbols from testprogs/build/fib...
(ptdbg) Undefined command: "frobnicate".  Try "help".
(ptdbg) $1 = 42
(ptdbg) 0x0:	Cannot access memory at address 0x0
(ptdbg) No stack.
(ptdbg) Breakpoint 1 at 0x401142: file fib.c, line 12.
(ptdbg) Starting program: testprogs/build/fib 

Breakpoint 1, fib (n=10) at fib.c:12
12		if (n < 2)
(ptdbg) (ptdbg) 0x0000000000401146	12		if (n < 2)
(ptdbg) Expected positive number, got: xyz.
(ptdbg) 
No more reverse-execution history.
fib (n=<unavailable>) at fib.c:12
12		if (n < 2)
(ptdbg) $2 = 0x401142
(ptdbg) '
if [ "$got" != "$want" ]; then
	note "--- prompt: expected:"
	diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") >&2
	failed=1
else
	note "ok prompt"
fi

[ "$failed" = 0 ] || die "bad input handled differently than expected"
