#!/usr/bin/env bash
# gdb 13's own `record btrace bts` and `record btrace pt` through
# ptdbg-server (Qbtrace, qXfer:btrace:read): over the same span, gdb's
# `record function-call-history /c` and `record instruction-history /f`
# must equal the ptdbg shell's for its own recording.  For pt, gdb decodes
# ptdbg's PT with its own libipt code, a check of that PT from outside;
# for bts it builds its history from the blocks the stub sends.  Then
# gdb's reverse-step (its btrace replay) must land on the same line as
# the ptdbg shell's.  Last, gdb's record stop over a server recording by
# itself (--record) leaves that recording to the stub's reverse motions,
# and gdb's record btrace bts at a past position the stub's reverse
# motions left gets the trace up to there.
. "$(dirname "$0")/lib.bash"

need_prereqs fib funcptr loops
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

# The listings between the markers, without the numbers' padding differences.
listing() { sed -n '/^LISTING-BEGIN$/,/^LISTING-END$/p' "$1"; }

failed=0
span() { # PROG FROM TO ARGS...
	local prog=$1 from=$2 to=$3 fmt a b common ref got
	shift 3
	a=$(bp_addr "$prog" "$from") || exit 1
	b=$(bp_addr "$prog" "$to") || exit 1
	common=('set record instruction-history-size unlimited'
		'set record function-call-history-size unlimited'
		'echo LISTING-BEGIN\n' 'info record' 'record function-call-history /c'
		'record instruction-history /f' 'echo LISTING-END\n'
		'reverse-step' 'echo AFTER-RSTEP\n' 'p/x $pc')
	ref=$TMPDIR/$prog.shell
	CMDS=("break *$a" run record delete "break *$b" continue "${common[@]}")
	ptdbg_batch -- "$TESTPROGS/$prog" "$@" >"$ref.log"
	listing "$ref.log" | grep -v -e '^Active record target' -e '^Recording format' \
		-e '^Buffer size' | sed 's/ for thread 1 (.*)\.$//' >"$ref"
	sed -n '/^AFTER-RSTEP$/{n;s/^\$[0-9]* = //p;}' "$ref.log" >>"$ref"
	grep -q '^Recorded [1-9][0-9]* instructions' "$ref" || { cat "$ref.log" >&2; die "$prog: the ptdbg shell recorded nothing"; }
	for fmt in bts pt; do
		got=$TMPDIR/$prog.$fmt
		ex=(-ex 'set pagination off' -ex 'set confirm off' -ex "break *$a" -ex continue
		    -ex "record btrace $fmt" -ex delete -ex "break *$b" -ex continue)
		for c in "${common[@]}"; do ex+=(-ex "$c"); done
		gdb -nx -batch -ex "target remote | $SERVER --stdio -- $TESTPROGS/$prog $*" \
			"${ex[@]}" >"$got.log" 2>&1
		listing "$got.log" | grep -v -e '^Active record target' -e '^Recording format' \
			-e '^Buffer size' | sed 's/ for thread 1 (.*)\.$//' >"$got"
		sed -n '/^AFTER-RSTEP$/{n;s/^\$[0-9]* = //p;}' "$got.log" >>"$got"
		if diff -u "$ref" "$got" >"$got.diff"; then
			note "ok $prog ($fmt): $(grep '^Recorded' "$got"), reverse-step to $(tail -n 1 "$got")"
		else
			note "$prog: gdb record btrace $fmt through the stub differs from the ptdbg shell (--- shell, +++ gdb):"
			head -n 60 "$got.diff" >&2
			tail -n 20 "$got.log" >&2
			failed=1
		fi
	done
}

span fib "$(line_of fib.c 'r = fib(n);')" "$(line_of fib.c 'printf(')" 5
span funcptr main "$(line_of funcptr.c 'printf(')"
span loops fill "$(line_of loops.c 'int sum = 0;')"
[ "$failed" = 0 ] || die "gdb's record btrace through the stub differs from ptdbg's own history"

# gdb's record btrace over a server that records by itself (--record):
# gdb's `record stop` (Qbtrace:off) leaves that recording alone, and the
# stub's own reverse-stepi (bs) goes on working after it (before, the
# recording was stopped: "Remote failure reply: E01").
log=$TMPDIR/btrace-record.log
gdb -nx -batch -ex 'set pagination off' -ex 'set confirm off' \
	-ex "target remote | $SERVER --record --method soft --stdio -- $TESTPROGS/fib 6" \
	-ex 'break fib' -ex continue -ex 'record btrace bts' -ex continue -ex 'info record' \
	-ex 'record stop' -ex 'echo LIVE\n' -ex 'p/x $pc' -ex reverse-stepi -ex 'echo BACK\n' -ex 'p/x $pc' \
	>"$log" 2>&1
cat "$log" >&2
live=$(sed -n '/^LIVE$/{n;s/^\$[0-9]* = //p;}' "$log")
back=$(sed -n '/^BACK$/{n;s/^\$[0-9]* = //p;}' "$log")
grep -q '^Recording format: Branch Trace Store\.$' "$log" || die "--record: record btrace bts did not start"
grep -q 'Remote failure reply' "$log" && die "--record: the stub refused after gdb's record stop"
[ -n "$live" ] && [ -n "$back" ] && [ "$live" != "$back" ] ||
	die "--record: reverse-stepi after record stop did not move ($live -> $back)"
note "ok --record: gdb's record stop keeps the stub's recording, reverse-stepi $live -> $back"

# gdb's record btrace bts while the stub's own reverse execution has left
# the thread in the past (--record, reverse-continue and reverse-stepi to
# the middle of a block): gdb's trace ends there, the same as when the
# program stops there live (before: "Failed to read branch trace").
mid=$(gdb -nx -batch -ex 'x/5i fib' "$TESTPROGS/fib" | sed -n '5s/^ *\(0x[0-9a-f]*\) .*/\1/p')
[ -n "$mid" ] || die "no fib+N address"
for how in past live; do
	if [ "$how" = past ]; then
		go=(-ex 'break fib' -ex continue -ex continue -ex reverse-continue -ex reverse-stepi)
	else
		go=(-ex "break *$mid" -ex continue)
	fi
	gdb -nx -batch -ex 'set pagination off' -ex 'set confirm off' \
		-ex "target remote | $SERVER --record --method soft --stdio -- $TESTPROGS/fib 5" "${go[@]}" \
		-ex 'echo PC\n' -ex 'p/x $pc' -ex 'record btrace bts' -ex 'echo LISTING-BEGIN\n' -ex 'info record' \
		-ex 'record instruction-history' -ex 'record function-call-history' -ex 'echo LISTING-END\n' \
		-ex reverse-stepi -ex 'echo BACK\n' -ex 'p/x $pc' >"$TMPDIR/btrace-$how.log" 2>&1
	{ sed -n '/^PC$/{n;s/^\$[0-9]* = //p;}' "$TMPDIR/btrace-$how.log"
	  listing "$TMPDIR/btrace-$how.log" | sed 's/ for thread 1 (.*)\.$//'
	  sed -n '/^BACK$/{n;s/^\$[0-9]* = //p;}' "$TMPDIR/btrace-$how.log"; } >"$TMPDIR/btrace-$how"
done
cat "$TMPDIR/btrace-past.log" >&2
[ "$(head -n 1 "$TMPDIR/btrace-past")" = "$mid" ] || die "--record: reverse-stepi did not stop at $mid"
grep -q '^Recorded [1-9][0-9]* instructions' "$TMPDIR/btrace-past" || die "--record: no trace at the past position"
diff -u "$TMPDIR/btrace-live" "$TMPDIR/btrace-past" >&2 ||
	die "--record: gdb's trace at a past position differs from the one at the same place live"
note "ok --record: record btrace bts at a past position ($mid) as live there"
