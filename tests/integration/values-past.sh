#!/usr/bin/env bash
# Values in the recorded past (issue 14).  The recorder knows registers
# only where it knows them: the soft recorder at its traps, nowhere for
# step.  So:
#  - at a soft trap, locals and arguments (found through the CFA from the
#    exact registers) equal what gdb 13 `record full` shows at the same
#    instruction -- the values chosen do not change between that point
#    and the present, because memory is read as it is now, and ptdbg
#    says so once per position;
#  - where the registers are not known, everything that depends on them
#    is <unavailable> (never a guess), while globals and $pc still show;
#  - the past is read-only: set var is refused.
. "$(dirname "$0")/lib.bash"
need_prereqs values
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}

# Everything between "echo BEGIN\n" and "echo END\n" is compared.
section() { sed -n '/^BEGIN$/,/^END$/p' "$1"; }

known=('print n' 'print a[0]' 'print *a@4' 'print a[3] + n' 'info args' 'print $rip'
	'print g_counter' 'print g_arr' 'print/x n')
CMDS=('break sum' run record next next next reverse-next reverse-stepi 'echo BEGIN\n'
	"${known[@]}" 'echo END\n')
gdb_batch -- "$TESTPROGS/values" | norm >"$TMPDIR/gdb.out"
section "$TMPDIR/gdb.out" >"$TMPDIR/gdb.sec"
[ "$(wc -l <"$TMPDIR/gdb.sec")" -gt 8 ] || { cat "$TMPDIR/gdb.out" >&2; die "gdb record full did not get there"; }

# gdb's record full is "record"; ptdbg's soft recorder is chosen with
# --method=soft.
ptdbg_batch --method=soft -- "$TESTPROGS/values" | norm >"$TMPDIR/soft.out"
section "$TMPDIR/soft.out" | grep -v -e '^warning: memory is shown as it is now' \
	-e '^note: the registers at this point of the recording are exact' >"$TMPDIR/soft.sec"
diff -u "$TMPDIR/gdb.sec" "$TMPDIR/soft.sec" >&2 ||
	die "values at a soft trap differ from gdb record full's (- gdb, + ptdbg)"
n=$(grep -c '^warning: memory is shown as it is now, not as it was at this point of the recording$' \
	"$TMPDIR/soft.out")
[ "$n" = 1 ] || die "the present-memory note was given $n times at one position (want 1)"
n=$(grep -c '^note: the registers at this point of the recording are exact (the recorder kept them here)$' \
	"$TMPDIR/soft.out")
[ "$n" = 1 ] || die "the exact-registers note was given $n times at one position (want 1)"

# Where the registers are unknown (step keeps none; soft between traps).
for m in step soft; do
	CMDS=('break sum' run record next next next reverse-next 'echo BEGIN\n' 'print t'
		'print i' 'info locals' 'info args' 'print g_counter' 'print/x $pc' 'print $rsp'
		'print a[1]' 'set var i = 3' 'echo END\n' 'record goto end' 'print i')
	ptdbg_batch --method=$m -- "$TESTPROGS/values" >"$TMPDIR/$m.unk" 2>&1
	section "$TMPDIR/$m.unk" >"$TMPDIR/$m.usec"
	expect=$(printf '%s\n' 'BEGIN' '$1 = <unavailable>' '$2 = <unavailable>' \
		't = <unavailable>' 'i = <unavailable>' 'a = <unavailable>' 'n = <unavailable>' \
		'warning: memory is shown as it is now, not as it was at this point of the recording' \
		'$3 = 42' '$4 = 0x40120c' '$5 = <unavailable>' 'value is not available' \
		'cannot write memory: the program is not running live here (the recorded past and loaded traces are read-only)' \
		'END')
	# the pc of "reverse-next" from the third line, as gdb reports it
	gpc=$(sed -n 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p' "$TMPDIR/$m.usec")
	[ -n "$gpc" ] || { cat "$TMPDIR/$m.unk" >&2; die "$m: no pc shown in the past"; }
	expect=${expect//0x40120c/$gpc}
	if [ "$(cat "$TMPDIR/$m.usec")" != "$expect" ]; then
		diff -u <(printf '%s\n' "$expect") "$TMPDIR/$m.usec" >&2
		die "$m: values where registers are unknown are not <unavailable> or writes were not refused"
	fi
	# back at the end (live) the value is there again
	tail -n 1 "$TMPDIR/$m.unk" | qgrep -x '\$6 = 0' || { tail -n 3 "$TMPDIR/$m.unk" >&2; die "$m: live value after record goto end"; }
done

# The pc where ptdbg reverse-next stopped equals gdb's.
CMDS=('break sum' run record next next next reverse-next 'print/x $pc')
gpc=$(gdb_batch -- "$TESTPROGS/values" | sed -n 's/^\$1 = //p')
ppc=$(sed -n 's/^\$4 = //p' "$TMPDIR/soft.usec")
[ "$gpc" = "$ppc" ] || die "reverse-next stopped at $ppc, gdb at $gpc"
note "past values: soft-trap values equal gdb record full's; unknown registers give <unavailable>"
