#!/usr/bin/env bash
# Breakpoints with several locations, against gdb 13 (issue 14), on
# testprogs/multiloc (-O2 and -O0): `break clamp` on a function that
# exists only inlined gets a location at each inlined copy, `break scale`
# its out-of-line code and each inlined copy, `break FILE:LINE` and
# `break LINE` on a line inlined in several places every copy:
# "Breakpoint N at ADDR: SPEC. (K locations)", info breakpoints with the
# <MULTIPLE> row and the N.1, N.2 ... rows, stops named "Breakpoint N.M, "
# in the frame gdb shows there (the inlined function's), hits counted per
# breakpoint, ignore, condition, tbreak, disable/enable N and N.M,
# delete; live, and in the recording (record full in gdb): reverse-continue
# and continue while replaying.  Frame arguments are left out of the
# comparison (values in the past and of inlined frames are compared by
# values-past.sh and values-inline.sh).
. "$(dirname "$0")/lib.bash"
need_prereqs multiloc multiloc-O2 exec dlopen libplugin.so
need_gdb

norm() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go backward to insn number' -e '^Go forward to insn number' |
		sed -E -e 's/^((Temporary )?[Bb]reakpoint [0-9.]+, )?([A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1\3 () at /' \
			-e 's/^(#[0-9]+ +(0x[0-9a-f]+ in )?[A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1 () at /' \
		-e 's/^process [0-9]+ is executing/process PID is executing/'
}

# compare NAME PROG [ARGS...]: CMDS in both debuggers, the outputs must be equal
compare() {
	local name=$1 prog=$2
	shift 2
	gdb_batch -- "$TESTPROGS/$prog" "$@" | norm >"$TMPDIR/$name.gdb"
	ptdbg_batch -- "$TESTPROGS/$prog" "$@" | norm >"$TMPDIR/$name.ptdbg"
	[ "${PIPESTATUS[0]}" -le 1 ] || die "$name: ptdbg crashed"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	fi
	note "$name: $(grep -c . "$TMPDIR/$name.ptdbg") lines as gdb's"
}

# 1. Live, -O2: every copy of an only-inlined function, of a function with
#    out-of-line code too, of a file:line and of a line; ignore and tbreak.
CMDS=('break clamp' 'break scale' 'break multiloc.c:19' 'tbreak 25' 'ignore 1 2'
      'info breakpoints' run bt continue continue continue continue 'info breakpoints')
compare live-O2 multiloc-O2
out=$TMPDIR/live-O2.ptdbg
qgrep -x 'Breakpoint 1 at 0x[0-9a-f]*: clamp. (2 locations)' "$out" ||
	die "break on an only-inlined function did not get its 2 copies"
qgrep -x 'Breakpoint 2 at 0x[0-9a-f]*: scale. (3 locations)' "$out" ||
	die "break scale did not get its out-of-line code and 2 inlined copies"
qgrep '^Breakpoint 1\.1, clamp () at ' "$out" || die "no stop at clamp's first copy: $(cat "$out")"
qgrep -x '3\.2  *y   0x[0-9a-f]* in clamp at multiloc.c:[0-9]*' "$out" ||
	die "no location row for the line's second copy"

# 2. The same at -O0 (always_inline copies are inlined there too).
compare live-O0 multiloc

# 3. Live, a condition on one breakpoint with several locations (a global:
#    the same in both), disable/enable of a location and of the breakpoint,
#    a single-location breakpoint's N.1, ranges, bad numbers, delete.
CMDS=('break clamp' 'break scale' 'break second' 'condition 1 sink > 50' 'disable 2.1'
      'disable 2.3' 'disable 3.1' 'disable 2.4' 'disable 9' 'disable 2.0' 'info breakpoints'
      run continue 'info breakpoints' 'enable 2.3' 'enable 3' 'disable 1' continue continue
      continue 'info breakpoints' 'delete 2' continue 'info breakpoints' disable 'info breakpoints'
      'enable 1-3' 'disable 1.1-2' 'disable -1' 'disable 1.' 'disable 1.x' 'info breakpoints')
compare live-enable multiloc-O2

# 3b. A condition that cannot be evaluated at one of the locations (k is
#     optimized out in one copy): gdb's error, and the program stops.
CMDS=('break scale' 'condition 1 k == 5' run continue continue 'info breakpoints')
compare live-cond-error multiloc-O2
qgrep -x 'Error in testing breakpoint condition:' "$TMPDIR/live-cond-error.ptdbg" ||
	die "no condition error at the copy where k is optimized out"

# 4. Recording (record full in gdb): reverse-continue through the copies,
#    a temporary one deleted when hit in the past, a disabled location
#    passed over, then continue while replaying; hits counted as gdb's.
end=$(line_of multiloc.c 'main: through the pointer')
CMDS=('break main' run record "break $end" continue 'break clamp' 'break scale'
      'tbreak multiloc.c:19' 'info breakpoints' reverse-continue reverse-continue
      reverse-continue reverse-continue 'info breakpoints' 'disable 3.2' 'ignore 4 1'
      reverse-continue reverse-continue bt continue continue 'enable 3.2' continue continue
      'info breakpoints')
compare replay multiloc-O2
qgrep '^Temporary breakpoint 5\.2, clamp () at ' "$TMPDIR/replay.ptdbg" ||
	die "the temporary breakpoint did not stop in the past"

# 5. Pending before run, in a program that execs into multiloc: a function
#    and a file no loaded program has get their locations after the exec;
#    bad lines worded as gdb's.
CMDS=('set breakpoint pending on' 'break clamp' 'tbreak multiloc.c:19' 'info breakpoints'
      'break exec.c:9999' run 'info breakpoints' continue continue 'info breakpoints')
compare exec exec "$TESTPROGS/multiloc-O2"
qgrep -x '1\.2  *y   0x[0-9a-f]* in clamp at multiloc.c:[0-9]*' "$TMPDIR/exec.ptdbg" ||
	die "the pending breakpoint did not get its locations after the exec"
CMDS=('set breakpoint pending off' 'break nosuch.c:3' 'break 9999' 'break multiloc.c:9999')
compare bad-lines multiloc-O2
# ... and a line of a library loaded later, resolved at its dlopen
CMDS=('set breakpoint pending on' "break $(line_of plugin.c 'r += i * plugin_scale')"
      'info breakpoints' run 'info breakpoints' continue)
compare dlopen-line dlopen
qgrep '^Breakpoint 1, plugin_compute () at plugin.c' "$TMPDIR/dlopen-line.ptdbg" ||
	die "the pending line in the library did not stop"

# 6. A real optimised program (ptdbg itself, not run): static functions of
#    one name in several files, each inlined in many places, gcc's clones
#    (NAME.isra.0), lines of inlined functions.
cp "$PTDBG" "$TMPDIR/prog" || die "cannot copy $PTDBG"
CMDS=('break skipws' 'break xstrdup' 'break is_main' 'break first_word' 'break row_at'
      'break symbols.c:930' 'break ptd__err' 'info breakpoints')
gdb_batch -- "$TMPDIR/prog" | norm >"$TMPDIR/real.gdb"
ptdbg_batch -- "$TMPDIR/prog" | norm >"$TMPDIR/real.ptdbg"
diff -u "$TMPDIR/real.gdb" "$TMPDIR/real.ptdbg" >&2 || die "real: ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep -E '^Breakpoint 1 at 0x[0-9a-f]+: skipws\. \([0-9]+ locations\)$' "$TMPDIR/real.ptdbg" ||
	die "real: skipws (static in several files, inlined) has not several locations"
note "real: $(grep -c . "$TMPDIR/real.ptdbg") lines as gdb's"
exit 0
