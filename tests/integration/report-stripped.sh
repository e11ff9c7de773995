#!/usr/bin/env bash
# ptdbg-report on programs without symbols: a stripped copy of segfault
# (non-PIE) and /bin/true (a stripped PIE) have no function main to start
# recording at, and ptdbg-report refused both ("Function "main" not
# defined.").  Without --from it now records from the entry point the
# kernel gives (AT_ENTRY, with the PIE's bias) and says so; the crash and
# the exit are reported with libc's frames, their addresses the ones a
# run of the program under gdb shows.  An explicit --from that is not
# there stays an error.
. "$(dirname "$0")/lib.bash"
need_prereqs segfault
need_gdb
REPORT=$BD/bin/ptdbg-report

strip -o "$TMPDIR/segv" "$TESTPROGS/segfault"
rc=0
"$REPORT" "$TMPDIR/segv" >"$TMPDIR/out" 2>"$TMPDIR/err" || rc=$?
[ "$rc" = 0 ] || { cat "$TMPDIR/err" >&2; die "report on the stripped segfault: exit $rc"; }
qgrep "^ptdbg-report: $TMPDIR/segv has no function main: recording from its entry point\$" "$TMPDIR/err" ||
	die "no note on the entry point: $(cat "$TMPDIR/err")"
entry=$(readelf -h "$TMPDIR/segv" | awk '/Entry point/ { print $4 }')
qgrep "from its entry point ($entry)" "$TMPDIR/err" || die "not recorded from the ELF entry $entry"
qgrep '^Program received signal SIGSEGV, Segmentation fault\.$' "$TMPDIR/out" || die "no crash reported"
# the crashing pc is gdb's on the same program
pc=$(gdb -nx -batch -ex run -ex 'p/x $pc' "$TMPDIR/segv" 2>/dev/null | sed -n 's/^\$1 = //p')
[ -n "$pc" ] || die "gdb gave no crash pc"
qgrep "^#0  0x0*${pc#0x} in ?? ()\$" "$TMPDIR/out" || die "frame #0 is not gdb's pc $pc"
qgrep '__libc_start_call_main' "$TMPDIR/out" || die "no libc frames in the backtrace"
qgrep '^How execution got here' "$TMPDIR/out" || die "no call history"
note "stripped non-PIE: crash at $pc reported from the entry $entry"

# a stripped PIE that exits
rc=0
"$REPORT" /bin/true >"$TMPDIR/out" 2>"$TMPDIR/err" || rc=$?
[ "$rc" = 0 ] || { cat "$TMPDIR/err" >&2; die "report on /bin/true: exit $rc"; }
qgrep '^ptdbg-report: recording /bin/true from its entry point (0x5555' "$TMPDIR/err" ||
	die "the PIE's entry was not biased: $(cat "$TMPDIR/err")"
qgrep "^The program's exit code: 0\.\$" "$TMPDIR/out" || die "no exit reported for /bin/true"
note "stripped PIE: its exit reported"

# --from given: no fallback
rc=0
"$REPORT" --from=nosuch /bin/true >"$TMPDIR/out" 2>"$TMPDIR/err" || rc=$?
[ "$rc" != 0 ] || die "--from=nosuch succeeded"
qgrep '^ptdbg-report: /bin/true: Function "nosuch" not defined\.$' "$TMPDIR/err" ||
	die "--from=nosuch: $(cat "$TMPDIR/err")"
[ ! -s "$TMPDIR/out" ] || die "--from=nosuch wrote a report"
note "--from=nosuch: an error, as before"
