#!/usr/bin/env bash
# catch and tcatch compared with gdb 13 on the same programs: the C++
# exception catchpoints (catch throw|catch|rethrow, set on libstdc++'s
# probes before the program runs) when set, in info breakpoints, at their
# stops live ("Catchpoint N (exception thrown), 0x... in __cxa_throw ()
# from /lib/x86_64-linux-gnu/libstdc++.so.6": the library named as the
# dynamic linker names it), with conditions, tcatch, delete, disable,
# enable and save breakpoints, and in the recorded past (gdb record full:
# continue and reverse-continue stop at them as live); catch exec, fork,
# vfork and signal on the live program's events, with gdb's quirks (no
# "Temporary" when a tcatch of these is set, "catch" when one is saved).
. "$(dirname "$0")/lib.bash"
need_prereqs throw throw-O2 fork exec fib signal forkchain
need_gdb

# gdb's record full cannot record the AVX-512 string functions of glibc
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX2,-AVX,-EVEX,-RTM,-AVX_Fast_Unaligned_Load,-ERMS

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' | normalize
}

# compare NAME PROG REGEX: identical outputs containing REGEX
compare() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2 ||
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

# 1. set before run, listed, hit live; tcatch goes when hit
for p in throw throw-O2; do
	CMDS=('catch throw' 'catch catch' 'catch rethrow' 'tcatch throw' 'info breakpoints'
		'run' 'bt 1' 'continue' 'info breakpoints' 'continue')
	compare "live-$p" "$p" '^Catchpoint 2 (exception caught), 0x[0-9a-f]* in __cxa_begin_catch () from '
done

# 2. conditions, disable/enable/delete, save breakpoints, bad subcommands
CMDS=('tcatch catch' 'catch throw' 'condition 2 depth > 3' 'disable 1' 'info breakpoints'
	'enable 1' 'disable 2' 'enable 2' 'run' 'continue' 'catch rethrow' 'disable 3'
	"save breakpoints $TMPDIR/saved" "shell cat $TMPDIR/saved" 'delete 2'
	'info breakpoints' 'catch foo' 'tcatch bar')
compare edit throw '^  condition \$bpnum depth > 3$'

# 3. the recorded past: forward and reverse-continue stop at them
CMDS=('start' 'record full' 'catch throw' 'catch catch' 'continue' 'continue'
	'reverse-continue' 'info breakpoints' 'continue' 'reverse-continue' 'reverse-continue'
	'continue' 'tcatch catch' 'continue' 'reverse-continue' 'continue' 'info breakpoints')
compare past throw '^No more reverse-execution history\.$'

# 4. catch exec, fork, vfork (the live program's events): set, listed with
#    what they caught, hit, tcatch.  A forked child is held until the
#    program goes on, then let go with gdb's "[Detaching after fork from
#    child process N]", so its line comes after the catchpoint's stop, as
#    under gdb; the exec'd program's first instruction is at ld.so's
#    _start, which ptdbg does not name (a symbol without type or size:
#    starti's stop has the same difference), so gdb's name there becomes
#    ptdbg's "??".
evnorm() {
	norm | sed 's/ in _start () from \/lib64\/ld-linux-x86-64\.so\.2$/ in ?? ()/'
}
compare_ev() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | evnorm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | evnorm >"$TMPDIR/$name.gdb"
	diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2 ||
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}
CMDS=('catch fork' 'catch vfork' 'catch exec' 'info breakpoints' 'run' 'info breakpoints'
	'continue' 'continue')
compare_ev fork fork '^Catchpoint 1 (forked process PID), arch_fork '
CMDS=('catch fork' 'tcatch exec' 'catch exec' 'condition 3 0' 'info breakpoints' 'run'
	'info breakpoints' "save breakpoints $TMPDIR/saved-ev" "shell cat $TMPDIR/saved-ev"
	'continue' 'catch exec 1')
compare_ev exec exec "^Temporary catchpoint 2 (exec'd testprogs/build/fib), "
CMDS=('catch vfork' 'run' 'info breakpoints')
compare_ev vfork forkchain '^Catchpoint 1 (vforked process PID), __libc_vfork () at '

# 5. catch signal: names, gdb's numbers (10 is its SIGBUS, 12 its SIGSYS),
#    the standard set, stops whatever handle says, tcatch (gdb says no
#    "Temporary" for it), save breakpoints, bad signals.  The arguments of
#    the frame where raise() stopped are left out: ptdbg does not show
#    DWARF entry values (gdb's "signo=signo@entry=10"), at any stop.
signorm() {
	norm | sed 's/^\(.*__pthread_kill_implementation\) (.*) at /\1 (...) at /'
}
compare_sig() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | signorm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | signorm >"$TMPDIR/$name.gdb"
	diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2 ||
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}
CMDS=('catch signal SIGUSR1' 'tcatch signal SIGALRM' 'info breakpoints' 'run'
	'info breakpoints' 'continue' 'info breakpoints' 'continue')
compare_sig signal signal '^Catchpoint 2 (signal SIGALRM), __pthread_kill_implementation '
CMDS=('catch signal' 'handle SIGUSR1 nostop noprint' 'catch signal 10 SIGALRM 12'
	'disable 2' 'info breakpoints' "save breakpoints $TMPDIR/saved-sig"
	"shell cat $TMPDIR/saved-sig" 'run' 'continue' 'continue' 'catch signal SIGFOO'
	'catch signal 99')
compare_sig signal-set signal '^catch signal SIGBUS SIGALRM SIGSYS$'

# 6. command lists on catchpoints, and an exception catchpoint in a
#    program without libstdc++ (gdb's narrow address column: no location)
printf '%s\n' 'catch signal SIGUSR1' 'commands' 'silent' 'print 42' 'end' 'catch throw' \
	'commands' 'print 7' 'end' 'run' 'info breakpoints' >"$TMPDIR/cmds.gdb"
CMDS=()
ptdbg_batch -x "$TMPDIR/cmds.gdb" -- "$TESTPROGS/signal" | norm >"$TMPDIR/cmds.ptdbg"
gdb_batch -x "$TMPDIR/cmds.gdb" -- "$TESTPROGS/signal" | norm >"$TMPDIR/cmds.gdb.out"
diff -u "$TMPDIR/cmds.gdb.out" "$TMPDIR/cmds.ptdbg" >&2 || die "cmds: ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep -e '^\$1 = 42$' "$TMPDIR/cmds.ptdbg" || die "cmds: the command list did not run"
note "cmds: $(wc -l <"$TMPDIR/cmds.ptdbg") lines identical to gdb's"

# 7. gdb's catchpoints ptdbg does not have are refused as such
CMDS=('catch syscall write' 'tcatch load')
ptdbg_batch -- "$TESTPROGS/signal" >"$TMPDIR/unsupported.ptdbg"
qgrep -e '^catch syscall is not supported by ptdbg$' "$TMPDIR/unsupported.ptdbg" ||
	die "unsupported: catch syscall not refused"
qgrep -e '^tcatch load is not supported by ptdbg$' "$TMPDIR/unsupported.ptdbg" ||
	die "unsupported: tcatch load not refused"
