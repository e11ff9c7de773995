#!/usr/bin/env bash
# generate-core-file (gcore): the live program as an ELF core gdb 13
# loads: stopped at a breakpoint in fib, the core's bt, registers, locals
# and code (the original instruction where ptdbg's int3 is) in gdb equal
# ptdbg's live ones; a multithreaded program's threads all in it, the
# selected one first (gdb's thread 1); refused without a program and in
# the recorded past.
. "$(dirname "$0")/lib.bash"

need_prereqs fib threads
need_gdb
core=$TMPDIR/core.fib
CMDS=('break fib if n==1' 'run' 'bt' 'info registers rip rsp rbp' 'p n' 'x/2i $pc'
	"gcore $core")
ptdbg_batch -- "$TESTPROGS/fib" 3 >"$TMPDIR/live" 2>&1
qgrep "^Saved corefile $core\$" "$TMPDIR/live" || { cat "$TMPDIR/live" >&2; die "no core saved"; }
[ -s "$core" ] || die "the core file is empty"
# what ptdbg showed live, from the bt on
sed -n '/^#0 /,/^Saved corefile/p' "$TMPDIR/live" | grep -v '^Saved corefile' >"$TMPDIR/live.show"
gdb -nx -q -batch -ex 'bt' -ex 'info registers rip rsp rbp' -ex 'p n' -ex 'x/2i $pc' \
	"$TESTPROGS/fib" "$core" </dev/null 2>&1 |
	awk '/^#0 / { n++ } n >= 2' >"$TMPDIR/gdb.show"  # (after the frame gdb shows at load)
diff -u "$TMPDIR/live.show" "$TMPDIR/gdb.show" >&2 || die "gdb's view of the core differs from ptdbg's live one (- ptdbg, + gdb)"
qgrep '^=> 0x[0-9a-f]* <fib+12>:	cmpl ' "$TMPDIR/gdb.show" || die "the breakpoint's int3 is in the core"
note "fib: $(wc -l <"$TMPDIR/gdb.show") lines of gdb's view of the core equal ptdbg's live view"

tcore=$TMPDIR/core.threads
CMDS=('break worker' 'run' 'info threads' "gcore $tcore")
ptdbg_batch -- "$TESTPROGS/threads" >"$TMPDIR/tlive" 2>&1
qgrep "^Saved corefile $tcore\$" "$TMPDIR/tlive" || { cat "$TMPDIR/tlive" >&2; die "threads: no core"; }
want=$(grep -c '^[ *] *[0-9][0-9]*  *LWP ' "$TMPDIR/tlive")
sel=$(sed -n 's/^\* *[0-9][0-9]*  *LWP \([0-9]*\) .*/\1/p' "$TMPDIR/tlive")
gdb -nx -q -batch -ex 'info threads' "$TESTPROGS/threads" "$tcore" </dev/null >"$TMPDIR/tgdb" 2>&1
got=$(grep -c '^[ *] *[0-9][0-9]*  *Thread ' "$TMPDIR/tgdb")
[ "$want" -ge 2 ] && [ "$got" = "$want" ] || { cat "$TMPDIR/tlive" "$TMPDIR/tgdb" >&2; die "threads: $got in the core, $want live"; }
qgrep "^\* 1    Thread 0x[0-9a-f]* (LWP $sel) worker " "$TMPDIR/tgdb" || { cat "$TMPDIR/tgdb" >&2; die "threads: the selected thread is not gdb's first"; }
note "threads: $got threads, the selected one first"

CMDS=('gcore' 'break fib' 'run' 'record' 'stepi' 'reverse-stepi' "gcore $TMPDIR/core.past")
ptdbg_batch -- "$TESTPROGS/fib" 3 >"$TMPDIR/err" 2>&1
qgrep '^The program is not being run\.$' "$TMPDIR/err" || { cat "$TMPDIR/err" >&2; die "no program: not refused"; }
qgrep 'Cannot write a core file of the recorded past' "$TMPDIR/err" || { cat "$TMPDIR/err" >&2; die "past: not refused"; }
[ ! -e "$TMPDIR/core.past" ] || die "past: a core was written"
note "refused without a program and in the past"
