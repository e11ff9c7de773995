#!/usr/bin/env bash
# ptdbg-server with lldb 14 as a second remote-protocol client
# (`gdb-remote 127.0.0.1:PORT` to `ptdbg-server --listen 127.0.0.1:0`):
# a breakpoint on fib, continue, the backtrace (fib, main, and libc's
# __libc_start_call_main: lldb found the shared libraries through
# qShlibInfoAddr), rip at the breakpoint address, then detach: the program
# runs on untraced to its normal end and prints its result.  Then an
# exec (lldb loads the new program) and kill: lldb is told of the end at
# once (X09, as lldb-server says it).
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
command -v lldb >/dev/null || die "lldb not installed (make deps installs it)"
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

# the program's output: the fifo reaches EOF only when the server and the
# program (which inherits it) have both closed it, i.e. have both ended
mkfifo "$TMPDIR/err" "$TMPDIR/out"
"$SERVER" --listen 127.0.0.1:0 -- "$TESTPROGS/fib" >"$TMPDIR/out" 2>"$TMPDIR/err" &
spid=$!
on_exit "kill -9 $spid 2>/dev/null"
exec 8<"$TMPDIR/out" 7<"$TMPDIR/err"
port=
while IFS= read -r -t 120 -u 7 line; do
	note "server: $line"
	case $line in "Listening on port "*) port=${line##* }; break ;; esac
done
[ -n "$port" ] && [ "$port" != 0 ] || die "the server did not say which port it listens on"
cat <&7 >"$TMPDIR/err.rest" &
cat <&8 >"$TMPDIR/prog.out" &
catpid=$!
exec 7<&- 8<&-

want=$(bp_addr fib fib)
timeout 300 lldb --batch --no-lldbinit \
	-o "gdb-remote 127.0.0.1:$port" -o 'breakpoint set -n fib' -o continue \
	-o bt -o 'image list' -o 'register read rip' -o detach \
	"$TESTPROGS/fib" >"$TMPDIR/lldb.out" 2>&1
rc=$?
cat "$TMPDIR/lldb.out" >&2
[ $rc = 0 ] || die "lldb exited with $rc"
expect_in() { # FILE EXTENDED-REGEX WHAT
	grep -Eq -- "$2" "$1" || die "$3: no line matching '$2'"
}
expect_in "$TMPDIR/lldb.out" '^\* thread #1, stop reason = breakpoint 1\.1$' "breakpoint hit"
expect_in "$TMPDIR/lldb.out" '^  \* frame #0: 0x0*'"${want#0x}"' fib`fib\(n=10\) at fib\.c:12' "bt: frame 0 is fib"
expect_in "$TMPDIR/lldb.out" '^    frame #1: 0x[0-9a-f]+ fib`main\(argc=1, ' "bt: frame 1 is main"
expect_in "$TMPDIR/lldb.out" '^    frame #2: 0x[0-9a-f]+ libc\.so\.6`__libc_start_call_main' "bt: libc's frame below main"
expect_in "$TMPDIR/lldb.out" ' /lib/x86_64-linux-gnu/libc\.so\.6 *$' "image list: libc"
got=$(sed -n 's/^ *rip = \(0x[0-9a-f]*\) .*/\1/p' "$TMPDIR/lldb.out")
[ -n "$got" ] && [ $((got)) = $((want)) ] || die "rip '$got', the breakpoint is at $want"
expect_in "$TMPDIR/lldb.out" '^Process [0-9]+ detached$' "detach"
prog=$(sed -n 's/^Process \([0-9]*\) detached$/\1/p' "$TMPDIR/lldb.out")
# after detach the program runs on by itself to its normal end
wait $spid || die "the server exited with $?"
wait $catpid # EOF: the program has exited (its stdout closed)
grep -qx 'fib(10) = 55' "$TMPDIR/prog.out" || { cat "$TMPDIR/prog.out" >&2; die "the detached program did not finish"; }
cat "$TMPDIR/err.rest" >&2
note "ok lldb: breakpoint at $want, bt fib/main, rip, detach, the program finished"

# exec: lldb is told (reason:exec, as lldb-server says it), loads the new
# program and puts its breakpoint on main into it (before: a SIGTRAP,
# with the old program's modules).
mkfifo "$TMPDIR/err3"
"$SERVER" --listen 127.0.0.1:0 -- "$TESTPROGS/exec" 2>"$TMPDIR/err3" &
spid=$!
on_exit "kill -9 $spid 2>/dev/null"
exec 7<"$TMPDIR/err3"
port=
while IFS= read -r -t 120 -u 7 line; do
	case $line in "Listening on port "*) port=${line##* }; break ;; esac
done
[ -n "$port" ] || die "the server did not say which port it listens on"
cat <&7 >"$TMPDIR/err3.rest" &
exec 7<&-
timeout 300 lldb --batch --no-lldbinit -o "gdb-remote 127.0.0.1:$port" -o 'breakpoint set -n main' \
	-o continue -o continue -o 'image list' -o continue -o kill "$TESTPROGS/exec" >"$TMPDIR/lldb-exec.out" 2>&1
cat "$TMPDIR/lldb-exec.out" >&2
expect_in "$TMPDIR/lldb-exec.out" '^\* thread #1, stop reason = exec$' "exec: stop reason"
expect_in "$TMPDIR/lldb-exec.out" '^\[  0\] .* /.*/fib *$' "exec: the new program is the main module"
expect_in "$TMPDIR/lldb-exec.out" '^    frame #0: 0x[0-9a-f]+ fib`main\(argc=2, ' "exec: main of the new program"
wait $spid || die "the server exited with $? after the exec"
note "ok lldb: exec"

# kill: lldb waits for a reply to k (the process's end); without one it
# says "failed to send the k packet" after a timeout, exit status 6.
mkfifo "$TMPDIR/err2"
"$SERVER" --listen 127.0.0.1:0 -- "$TESTPROGS/fib" 2>"$TMPDIR/err2" &
spid=$!
on_exit "kill -9 $spid 2>/dev/null"
exec 7<"$TMPDIR/err2"
port= prog=
while IFS= read -r -t 120 -u 7 line; do
	note "server: $line"
	case $line in
	"ptdbg-server: started process "*) prog=${line##* } ;;
	"Listening on port "*) port=${line##* } ;;
	esac
	[ -n "$port" ] && [ -n "$prog" ] && break
done
[ -n "$port" ] && [ -n "$prog" ] || die "the server did not say which port it listens on"
cat <&7 >"$TMPDIR/err2.rest" &
exec 7<&-
timeout 300 lldb --batch --no-lldbinit -o "gdb-remote 127.0.0.1:$port" -o 'breakpoint set -n fib' \
	-o continue -o kill "$TESTPROGS/fib" >"$TMPDIR/lldb-kill.out" 2>&1
cat "$TMPDIR/lldb-kill.out" >&2
expect_in "$TMPDIR/lldb-kill.out" "^Process $prog exited with status = 9 \\(0x00000009\\) *$" "kill"
wait $spid || die "the server exited with $? after the kill"
[ ! -e "/proc/$prog" ] || qgrep zombie "/proc/$prog/status" 2>/dev/null || die "kill: process $prog still there"
note "ok lldb: kill"
