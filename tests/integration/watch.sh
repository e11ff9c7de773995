#!/usr/bin/env bash
# watch, rwatch and awatch with the x86 debug registers against gdb 13 on
# testprogs/watch (a global written twice by main and once by a thread
# created later, another global only read):
#  - the stops, "Hardware watchpoint N: counter", "Old value = / New
#    value =", "Value =", the frame lines and the info breakpoints /
#    info watchpoints tables equal gdb's (thread switch lines and argument
#    values left out: other parts of the shell print those);
#  - while recording (gdb: record full; ptdbg: step and soft) the forward
#    stops are the same, and the instruction count over the span is gdb's;
#  - set before run, they are armed when the program starts;
#  - run again: the watchpoint is set in the new process and the hit
#    counts restart, as in gdb;
#  - continue in the recorded past refuses with the reason while a
#    watchpoint is set (the recorders keep control flow, not memory);
#  - bad expressions get gdb's messages.
. "$(dirname "$0")/lib.bash"
need_prereqs watch
need_gdb
prog=$TESTPROGS/watch

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^\[Switching to' -e '^\[New Thread' -e '^\[Thread 0x' |
		norm_stack
}

CMDS=("break main" run "watch counter" "rwatch probe" "awatch counter" "info breakpoints"
      c c c c c "info watchpoints" c c)
pt=$(ptdbg_batch -- "$prog" | clean) || die "ptdbg failed"
gd=$(gdb_batch -- "$prog" | clean)
note "ptdbg:"; note "$pt"
echo "$pt" | qgrep '^Old value = 1$' || die "no Old value line"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "watchpoints differ from gdb"

# before run: set when the program starts (gdb's narrow address column
# while no breakpoint has an address)
CMDS=("watch counter" "rwatch probe" "info watchpoints" run c)
pt=$(ptdbg_batch -- "$prog" | clean) || die "ptdbg failed (before run)"
gd=$(gdb_batch -- "$prog" | clean)
note "ptdbg (before run):"; note "$pt"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "watchpoints set before run differ from gdb"

# run again: the watchpoint is set in the new process, the counts restart
CMDS=("break main" run "watch counter" c run c c "info watchpoints" "info breakpoints")
pt=$(ptdbg_batch -- "$prog" | clean) || die "ptdbg failed (run again)"
gd=$(gdb_batch -- "$prog" | clean)
note "ptdbg (run again):"; note "$pt"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "a watchpoint across run differs from gdb"

# recorded: the main thread's two writes (gdb's record full stops there too)
CMDS=("break main" run "record full" "watch counter" c c "info record")
gd=$(gdb_batch -- "$prog")
n_gdb=$(echo "$gd" | sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p')
[ -n "$n_gdb" ] || die "gdb record full did not record: $gd"
for m in step soft; do
	CMDS=("break main" run "record $m" "watch counter" c c "info record")
	pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed ($m): $pt"
	note "ptdbg (record $m):"; note "$pt"
	diff -u <(echo "$gd" | clean | grep -v -e '^Record\|^Lowest\|^Highest\|^Log\|^Max\|^Active') \
		<(echo "$pt" | clean | grep -v -e '^Recorded\|^Recording\|^Buffer\|^Active') >&2 ||
		die "record $m: watchpoint stops differ from gdb's record full"
	n_pt=$(echo "$pt" | sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p')
	[ "$n_pt" = "$n_gdb" ] || die "record $m: $n_pt instructions recorded, gdb $n_gdb"

	CMDS=("break main" run "record $m" "watch counter" c reverse-stepi c "record goto end" c)
	pt=$(ptdbg_batch -- "$prog")
	note "$pt"
	echo "$pt" | qgrep '^cannot continue in the recorded past with watchpoints set: the recording keeps the control flow, not the memory' ||
		die "record $m: continue in the past with a watchpoint was not refused with the reason"
	[ "$(echo "$pt" | grep -c '^New value = ')" = 2 ] ||
		die "record $m: after record goto end the watchpoint did not stop again"
done

# errors
CMDS=(watch "watch counter" "break main" run "watch nosuch" "watch 5" watch)
pt=$(ptdbg_batch -- "$prog" | clean)
gd=$(gdb_batch -- "$prog" | clean)
note "ptdbg (errors):"; note "$pt"
for msg in 'Argument required (expression to compute).' 'No symbol "nosuch" in current context.' \
	'Cannot watch constant value `5'"'"'.'; do
	echo "$gd" | qgrep -xF "$msg" || die "gdb does not say '$msg': $gd"
	echo "$pt" | qgrep -xF "$msg" || die "ptdbg does not say '$msg'"
done
exit 0
