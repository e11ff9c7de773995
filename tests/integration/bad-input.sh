#!/usr/bin/env bash
# Bad input on the command line and at the prompt: a nonexistent or
# non-executable program, -p with a pid that does not exist or is not a
# number, or that cannot be traced (ptdbg itself, a zombie, a process
# another tracer has, a kernel thread: gdb's words in the shell after a
# warning that says which, the reason in ptdbg-report's and
# ptdbg-server's message), --method=bogus (must list the valid methods), an unknown option,
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

# Pids the kernel refuses to let anyone trace.  (Each front end is given
# its own pid through exec from a shell that knows it.)
got=$(bash -c 'exec "$0" -batch -p $$' "$PTDBG" 2>&1)
[ "$got" = "I refuse to debug myself!" ] || { note "--- attach-self: got '$got'"; failed=1; }
for fe in report server; do
	if [ $fe = report ]; then
		got=$(bash -c 'exec "$0" -q -p $$' "$BD/bin/ptdbg-report" 2>&1)
	else
		got=$(bash -c 'exec "$0" --stdio --attach $$' "$BD/bin/ptdbg-server" 2>&1 </dev/null)
	fi
	[[ $got == "ptdbg-$fe: cannot attach to "*": it is ptdbg-$fe itself" ]] ||
		{ note "--- attach-self ($fe): got '$got'"; failed=1; }
done
# attach_refused WHAT EXPECTED-WARNING REASON: PID (set by the caller) is refused
attach_refused() {
	local got
	got=$("$PTDBG" -batch -p "$pid" 2>&1 </dev/null | normalize)
	[ "$got" = "warning: process PID $2
ptrace: Operation not permitted." ] || { note "--- attach-$1: got '$got'"; failed=1; }
	got=$("$BD/bin/ptdbg-report" -q -p "$pid" 2>&1)
	[ "$got" = "ptdbg-report: cannot attach to $pid: $3" ] ||
		{ note "--- attach-$1 (report): got '$got'"; failed=1; }
	got=$("$BD/bin/ptdbg-server" --stdio --attach "$pid" 2>&1 </dev/null)
	[ "$got" = "ptdbg-server: cannot attach to $pid: $3" ] ||
		{ note "--- attach-$1 (server): got '$got'"; failed=1; }
	note "checked attach-$1"
}
# A zombie: python forks a child that exits, waits for that with WNOWAIT
# (so it stays a zombie), prints its pid and waits to be killed.
coproc Z { exec python3 -c '
import os, sys
c = os.fork()
if c == 0:
    os._exit(0)
os.waitid(os.P_PID, c, os.WEXITED | os.WNOWAIT)
print(c, flush=True)
sys.stdin.read()'; }
zp=$Z_PID
read -r -t 60 -u "${Z[0]}" pid || die "no zombie"
attach_refused zombie "is a zombie - the process has already terminated" \
	"it is a zombie (it has exited and its parent has not yet waited for it)"
kill "$zp"
wait "$zp"
# Traced by another: a child that asked its python parent to trace it.
coproc T { exec python3 -c '
import ctypes, os, signal, sys
r, w = os.pipe()
c = os.fork()
if c == 0:
    os.close(r)
    ctypes.CDLL(None, use_errno=True).ptrace(0, 0, None, None)
    os.write(w, b"x")
    signal.pause()
os.close(w)
os.read(r, 1)
print(c, flush=True)
sys.stdin.read()'; }
tp=$T_PID
read -r -t 60 -u "${T[0]}" pid || die "no traced child"
attach_refused traced "is already traced by process PID (python3)" \
	"it is already traced by process $tp (python3)"
kill -9 "$pid"
kill "$tp"
wait "$tp"
# A kernel thread: kthreadd is pid 2 unless this runs in a pid namespace.
if [ -r /proc/2/stat ] && (( ($(sed 's/.*) //' /proc/2/stat | cut -d' ' -f7) & 0x200000) != 0 )); then
	pid=2
	attach_refused kthread "is a kernel thread" "it is a kernel thread"
fi

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
