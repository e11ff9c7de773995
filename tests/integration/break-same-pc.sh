#!/usr/bin/env bash
# Several breakpoints at one pc, against gdb 13: each is checked by its own
# condition and ignore count and counts its hit ("breakpoint already hit N
# times" on every one of them), the stop names the first that stops the
# program ("Breakpoint 4, ..." when 3's condition is false), and a
# temporary one there that stops it is deleted, also when another one is
# named.  Live (forward, recording) and replaying the recording backward
# and forward (record full in gdb).  In the past the conditions use $pc,
# the value both debuggers have there.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go backward to insn number' -e '^Go forward to insn number' |
		sed -E 's/^(Breakpoint [0-9]+, |Temporary breakpoint [0-9]+, |#[0-9]+ +(0x[0-9a-f]+ in )?|0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1\3 () at /'
}

compare() {
	local what=$1 pt gd
	pt=$(ptdbg_batch -- "$TESTPROGS/fib" | clean)
	[ $? -le 1 ] || die "ptdbg crashed ($what)"
	gd=$(gdb_batch -- "$TESTPROGS/fib" | clean)
	note "ptdbg ($what):"; note "$pt"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb (--- gdb, +++ ptdbg)"
	printf '%s\n' "$pt"
}

rec=$(line_of fib.c 'return fib(n - 1)'); rec=${rec#fib.c:}

# live, not recording: a temporary, a plain one, one with a condition and
# one with an ignore count, all at fib's first line
CMDS=("break fib" "tbreak fib" "break fib" "condition 1 n==7" "ignore 3 2" run "info breakpoints"
      continue continue "info breakpoints" continue "info breakpoints")
out=$(compare "breakpoints at one pc, live")
echo "$out" | qgrep '^Temporary breakpoint 2, fib' || die "the temporary breakpoint did not stop first: $out"
echo "$out" | qgrep '^Breakpoint 1, fib' || die "the conditional breakpoint never stopped: $out"
[ "$(echo "$out" | sed -n '/^Breakpoint 1, fib/,$p' | grep -c 'breakpoint already hit')" -ge 2 ] ||
	die "the hit is not counted on both breakpoints: $out"

# recording, then back and forth in the recording
CMDS=("break fib" run "record full" delete "tbreak $rec" "break $rec" "break $rec" "condition 3 n==7"
      "ignore 4 1" continue "info breakpoints" continue continue continue "info breakpoints"
      'condition 3 $pc == 0' "break $rec" 'condition 5 $pc != 0' "ignore 5 1"
      reverse-continue reverse-continue "info breakpoints"
      "tbreak $rec" reverse-continue "info breakpoints" continue continue "info breakpoints")
out=$(compare "breakpoints at one pc, recording and replaying")
echo "$out" | qgrep '^Breakpoint 4, fib' || die "no stop named the second breakpoint: $out"
echo "$out" | qgrep '^Temporary breakpoint 6 at' || die "no temporary breakpoint in the past: $out"
echo "$out" | tail -n 8 | qgrep '^6 ' && die "the temporary breakpoint hit in the past was not deleted: $out"
exit 0
