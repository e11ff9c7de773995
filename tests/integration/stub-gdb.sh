#!/usr/bin/env bash
# ptdbg-server with real gdb 13 (`target remote | ptdbg-server --stdio --
# PROG`): breakpoints, continue, backtrace, registers (rip as gdb's own
# native run has it), disassembly, stepi, threads, shared libraries, a
# signal and a crash, the exit, an exec (gdb loads the new program and
# its breakpoints); then detach (the program runs on by itself, no int3
# left, not traced) and kill (the process is gone).
. "$(dirname "$0")/lib.bash"

need_prereqs fib threads segfault waiter exec
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

# stub_gdb OUT SERVER-OPTIONS... -- PROG ARGS...: gdb through the stub, one
# -ex per element of CMDS; output (stdout and stderr) to OUT.
stub_gdb() {
	local out=$1 opts=() ex=(-ex 'set pagination off' -ex 'set confirm off') c
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	for c in "${CMDS[@]}"; do ex+=(-ex "$c"); done
	gdb -nx -batch -ex "target remote | $SERVER ${opts[*]} --stdio -- $*" "${ex[@]}" >"$out" 2>&1
}
expect_in() { # FILE EXTENDED-REGEX WHAT
	grep -Eq -- "$2" "$1" || { cat "$1" >&2; die "$3: no line matching '$2'"; }
}

# 1. fib: a breakpoint, the backtrace, registers, code, stepi, the exit.
CMDS=('break fib' continue bt 'info registers rip' 'info registers fctrl fstat ftag fop mxcsr' 'x/2i $pc' 'echo PC1\n' 'p/x $pc' stepi
      'echo PC2\n' 'p/x $pc' 'info threads' 'info sharedlibrary' delete continue)
stub_gdb "$TMPDIR/fib.out" -- "$TESTPROGS/fib"
cat "$TMPDIR/fib.out" >&2
expect_in "$TMPDIR/fib.out" '^Breakpoint 1, fib \(n=10\) at .*fib\.c:12$' "fib: breakpoint"
expect_in "$TMPDIR/fib.out" '^#1  0x[0-9a-f]+ in main \(argc=1, argv=0x[0-9a-f]+\) at .*fib\.c:22$' "fib: backtrace"
expect_in "$TMPDIR/fib.out" '^=> 0x[0-9a-f]+ <fib\+[0-9]+>:' "fib: disassembly at the pc"
expect_in "$TMPDIR/fib.out" '/libc\.so\.6$' "fib: shared libraries"
expect_in "$TMPDIR/fib.out" '^\* 1    Thread [0-9]+\.[0-9]+ .*fib \(n=10\)' "fib: threads"
expect_in "$TMPDIR/fib.out" '^fib\(10\) = 55$' "fib: program output"
expect_in "$TMPDIR/fib.out" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$' "fib: exit"
# rip, rsp and the x87/SSE control registers at the breakpoint are the
# ones gdb's native run reports
CMDS=('break fib' run 'info registers rip' 'info registers rsp fctrl fstat ftag fop mxcsr')
gdb_batch -- "$TESTPROGS/fib" >"$TMPDIR/fib.native"
for reg in rip fctrl fstat ftag fop mxcsr; do
	want=$(grep -E "^$reg " "$TMPDIR/fib.native")
	got=$(grep -E "^$reg " "$TMPDIR/fib.out")
	[ -n "$want" ] && [ "$want" = "$got" ] || die "$reg through the stub '$got', natively '$want'"
done
pc1=$(sed -n '/^PC1$/{n;s/^\$[0-9]* = //p;}' "$TMPDIR/fib.out")
pc2=$(sed -n '/^PC2$/{n;s/^\$[0-9]* = //p;}' "$TMPDIR/fib.out")
# stepi moves by exactly the length of the instruction gdb disassembled
len=$(gdb -nx -batch -ex "x/2i $pc1" "$TESTPROGS/fib" | sed -n '2s/^ *\(0x[0-9a-f]*\).*/\1/p')
[ -n "$pc1" ] && [ "$pc2" = "$len" ] || die "stepi from $pc1 went to $pc2, the next instruction is $len"
note "ok fib: breakpoint, bt, rip $pc1, stepi to $pc2, exit"

# 2. threads: a breakpoint hit in each new thread, named as the kernel
# names it (qXfer:threads:read) (gdb steps one thread
# over the breakpoint with the others stopped: vCont;s:TID), the threads
# listed.
CMDS=('break sum_range' continue 'info threads' bt continue delete continue)
stub_gdb "$TMPDIR/threads.out" -- "$TESTPROGS/threads"
cat "$TMPDIR/threads.out" >&2
[ "$(grep -Ec '^Thread [23] "threads" hit Breakpoint 1, sum_range \(from=(1|50), to=(50|100)\)' "$TMPDIR/threads.out")" = 2 ] ||
	die "threads: not one breakpoint hit in each thread"
[ "$(grep -Eo '^Thread [23] "threads" hit' "$TMPDIR/threads.out" | sort -u | wc -l)" = 2 ] ||
	die "threads: both hits in the same thread"
# at the first hit, main and the thread that hit are there (the other
# worker may not be created yet, or may be)
n=$(grep -cE '^[* ] +[0-9]+ +Thread [0-9]+\.[0-9]+ ' "$TMPDIR/threads.out")
[ "$n" -ge 2 ] && [ "$n" -le 3 ] || die "threads: info threads lists $n threads"
grep -qE '^\* [23] +Thread [0-9]+\.[0-9]+ "threads" +sum_range \(' "$TMPDIR/threads.out" ||
	die "threads: the thread that hit is not the current one in info threads"
expect_in "$TMPDIR/threads.out" '^#1  0x[0-9a-f]+ in worker \(' "threads: backtrace in a thread"
expect_in "$TMPDIR/threads.out" '^a=40425 b=287925$' "threads: program output"
expect_in "$TMPDIR/threads.out" 'exited normally' "threads: exit"
note "ok threads"

# 3. a crash: the signal is reported, then passed: the program dies of it.
# $_siginfo (qXfer:siginfo:read) is the kernel's, as natively: SIGSEGV,
# SEGV_MAPERR, the faulting address.
CMDS=(continue bt 'p $_siginfo.si_signo' 'p $_siginfo.si_code' 'p $_siginfo._sifields._sigfault.si_addr'
      continue 'info threads')
stub_gdb "$TMPDIR/segv.out" -- "$TESTPROGS/segfault"
cat "$TMPDIR/segv.out" >&2
expect_in "$TMPDIR/segv.out" '^Program received signal SIGSEGV, Segmentation fault\.$' "segfault: signal"
expect_in "$TMPDIR/segv.out" '^#0  .*lookup \(' "segfault: backtrace"
CMDS=(run 'p $_siginfo.si_signo' 'p $_siginfo.si_code' 'p $_siginfo._sifields._sigfault.si_addr')
gdb_batch -- "$TESTPROGS/segfault" >"$TMPDIR/segv.native"
grep '^\$[1-3] = ' "$TMPDIR/segv.native" >"$TMPDIR/segv.native.si"
grep '^\$[1-3] = ' "$TMPDIR/segv.out" >"$TMPDIR/segv.out.si"
[ "$(wc -l <"$TMPDIR/segv.native.si")" = 3 ] || { cat "$TMPDIR/segv.native" >&2; die "segfault: no native siginfo"; }
diff -u "$TMPDIR/segv.native.si" "$TMPDIR/segv.out.si" >&2 || die "segfault: \$_siginfo differs from the native one"
expect_in "$TMPDIR/segv.out" '^Program terminated with signal SIGSEGV, Segmentation fault\.$' "segfault: death"
note "ok segfault"

# 3a. signals as gdb's handle says, as natively: gdb's defaults (SIGALRM
# passes unseen: QPassSignals), and after handle SIGALRM stop and handle
# SIGUSR1 nopass (SIGALRM stops, SIGUSR1 is not delivered: one handler
# run).  The stops, the signals and the program's count must be gdb's own.
sigstops() { grep -E '^(Program received signal|Program terminated|hits=|\[Inferior 1 )' "$1" | sed -E 's/process [0-9]+/process PID/'; }
for handle in "" "handle SIGALRM stop print pass" "handle SIGUSR1 nopass"; do
	CMDS=(${handle:+"$handle"} continue continue continue)
	stub_gdb "$TMPDIR/sig.out" -- "$TESTPROGS/signal"
	CMDS=(${handle:+"$handle"} run continue continue)
	gdb_batch -- "$TESTPROGS/signal" >"$TMPDIR/sig.native"
	sigstops "$TMPDIR/sig.out" >"$TMPDIR/sig.stub.stops"
	sigstops "$TMPDIR/sig.native" >"$TMPDIR/sig.native.stops"
	grep -q '^hits=' "$TMPDIR/sig.native.stops" || { cat "$TMPDIR/sig.native" >&2; die "signal: no native run"; }
	diff -u "$TMPDIR/sig.native.stops" "$TMPDIR/sig.stub.stops" >&2 ||
		{ cat "$TMPDIR/sig.out" >&2; die "signal (${handle:-the defaults}): the stub's stops differ from gdb's native ones"; }
done
note "ok signals: as natively with gdb's defaults, handle SIGALRM stop, handle SIGUSR1 nopass"

# 3b. exec: gdb is told (exec-events), loads the new program and puts its
# breakpoints into it, as natively: the breakpoint on main stops in fib's
# main, and no int3 of the old program's is left at its addresses.
CMDS=('break main' continue continue bt continue)
stub_gdb "$TMPDIR/exec.out" -- "$TESTPROGS/exec"
cat "$TMPDIR/exec.out" >&2
expect_in "$TMPDIR/exec.out" '^Breakpoint 1, main \(argc=1, argv=0x[0-9a-f]+\) at .*exec\.c:' "exec: first main"
expect_in "$TMPDIR/exec.out" '^process [0-9]+ is executing new program: .*/fib$' "exec: announced"
expect_in "$TMPDIR/exec.out" '^Breakpoint 1, main \(argc=2, argv=0x[0-9a-f]+\) at .*fib\.c:19$' "exec: main of the new program"
expect_in "$TMPDIR/exec.out" '^#0  main \(argc=2, argv=0x[0-9a-f]+\) at .*fib\.c:19$' "exec: backtrace with the new program's symbols"
expect_in "$TMPDIR/exec.out" '^fib\(5\) = 5$' "exec: the new program's output"
expect_in "$TMPDIR/exec.out" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$' "exec: exit"
note "ok exec"

# 4. detach: the program runs on untraced and intact (waiter, as in
# detach.sh: it hands over its pid, then waits to be released).
d=$TMPDIR/waiter
mkdir -p "$d"
mkfifo "$d/ctl" "$d/go"
exec 3<>"$d/ctl" 4<>"$d/go"
CMDS=("break $(line_of waiter.c 'sum = sum * 31 + x;')" continue continue detach)
stub_gdb "$TMPDIR/detach.out" -- "$TESTPROGS/waiter" "$d"
cat "$TMPDIR/detach.out" >&2
expect_in "$TMPDIR/detach.out" '^Breakpoint 1, step \(x=1\) at ' "detach: second hit"
expect_in "$TMPDIR/detach.out" '^\[Inferior 1 \(process [0-9]+\) detached\]$' "detach"
pid=$(sed -n 's/^\[Inferior 1 (process \([0-9]*\)) detached\]$/\1/p' "$TMPDIR/detach.out")
on_exit "grep -qs waiter /proc/$pid/comm && kill -9 $pid"
read -r -t 60 -u 3 p || die "detach: the program did not run on"
[ "$p" = "$pid" ] || die "detach: pid from the program $p, gdb said $pid"
grep -q '^TracerPid:[[:space:]]*0$' "/proc/$pid/status" || die "detach: still traced"
echo go >&4
want=0
for ((i = 0; i < 10; i++)); do want=$(((want * 31 + i) & 0xffffffff)); done
read -r -t 60 -u 3 line || die "detach: the program died after release (an int3 left?)"
[ "$line" = "sum $want" ] || die "detach: program sent '$line', expected 'sum $want'"
exec 3<&- 4<&-
note "ok detach: the program ran on and computed $want"

# 5. kill: the process is gone when gdb says so.
CMDS=('break fib' continue kill)
stub_gdb "$TMPDIR/kill.out" -- "$TESTPROGS/fib"
cat "$TMPDIR/kill.out" >&2
expect_in "$TMPDIR/kill.out" '^\[Inferior 1 \(process [0-9]+\) killed\]$' "kill"
pid=$(sed -n 's/^\[Inferior 1 (process \([0-9]*\)) killed\]$/\1/p' "$TMPDIR/kill.out")
! grep -qs fib "/proc/$pid/comm" || die "kill: process $pid still there"
grep -q '^fib(10) = 55$' "$TMPDIR/kill.out" && die "kill: the program ran to its end"
note "ok kill"

# 6. attach to a program with 1,100 live threads: gdb lists every one (the
# thread list comes in several qsThreadInfo pieces); detach leaves them all
# running untraced.
fifo=$TMPDIR/many
mkfifo "$fifo"
"$TESTPROGS/manythreads" 1 1100 hold >"$fifo" &
mpid=$!
on_exit "kill -9 $mpid 2>/dev/null"
exec 5<"$fifo"
while read -r -t 120 line <&5; do [ "$line" = ready ] && break; done
[ "${line:-}" = ready ] || die "manythreads did not get ready"
# (The server attaches to every thread before it answers gdb's first
# packet: on a loaded machine that outlasts gdb's 2 s remotetimeout, and
# gdb's retry then reads the late answer as the reply to its next packet.)
gdb -nx -batch -ex 'set pagination off' -ex 'set remotetimeout 60' \
	-ex "target remote | $SERVER --stdio --attach $mpid" -ex 'info threads' -ex detach \
	>"$TMPDIR/many.out" 2>&1
n=$(grep -cE '^[* ] +[0-9]+ +Thread [0-9]+\.[0-9]+ ' "$TMPDIR/many.out")
[ "$n" = 1101 ] || { tail -n 20 "$TMPDIR/many.out" >&2; die "info threads lists $n threads, not 1101"; }
grep -Eq "^\\[Inferior 1 \\(process $mpid\\) detached\\]$" "$TMPDIR/many.out" || die "manythreads: no detach"
traced=0
for t in /proc/$mpid/task/*; do
	tp=$(sed -n 's/^TracerPid:[[:space:]]*//p' "$t/status")
	[ "$tp" = 0 ] || traced=$((traced + 1))
done
[ "$traced" = 0 ] || die "$traced threads are still traced after detach"
kill -TERM "$mpid"
wait "$mpid"
rc=$?
[ "$rc" = $((128 + 15)) ] || die "manythreads ended with $rc, not by SIGTERM (left stopped?)"
note "ok attach to 1,101 threads: all listed, all untraced after detach"
