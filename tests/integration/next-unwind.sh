#!/usr/bin/env bash
# next/nexti over a call that does not return normally, against gdb 13
# (live, and record full's replay): gdb steps over a call with a
# breakpoint at its return address that checks the frame, so
#  - a C++ exception caught in the frame being stepped ends the step where
#    the catch jumps back to the return address (testprogs/throw: next
#    over thrower(v) stops at `depth += 10;`, after the catch block ran);
#  - a longjmp back into the frame being stepped ends it when that frame's
#    code reaches the return address (testprogs/longjmp: next over
#    outer(1) in main stops at the printf line);
#  - one that lands in an outer frame never ends it: the program runs to
#    its exit (live), or the replay to the end of the history.
# Live without recording, recording (full and soft), and in the recorded
# past.  Frame lines are compared without argument values.
. "$(dirname "$0")/lib.bash"
need_prereqs throw longjmp
need_gdb
# gdb record full cannot record AVX-512 instructions (libc's string
# functions, which the C++ unwinder and printf use): both debuggers run
# the programs with the baseline implementations.
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX2,-AVX,-EVEX

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go backward to insn number' -e '^Go forward to insn number' |
		sed -E 's/^(Breakpoint [0-9]+, |Temporary breakpoint [0-9]+, |#[0-9]+ +(0x[0-9a-f]+ in )?|0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1\3 () at /'
}

# compare WHAT PROG [record method]: CMDS in both (gdb records with record
# full where ptdbg uses METHOD); from the line "@@" on when there is one
compare() {
	local what=$1 prog=$2 m=${3:-} pt gd
	gd=$(gdb_batch -- "$TESTPROGS/$prog" | clean)
	[ -n "$m" ] && CMDS=("${CMDS[@]/#record full/record $m}")
	pt=$(ptdbg_batch -- "$TESTPROGS/$prog" | clean)
	[ $? -le 1 ] || die "ptdbg crashed ($what)"
	if grep -qx '@@' <<<"$gd"; then
		pt=$(sed -n '/^@@$/,$p' <<<"$pt")
		gd=$(sed -n '/^@@$/,$p' <<<"$gd")
	fi
	note "ptdbg ($what):"; note "$pt"
	[ "$(wc -l <<<"$pt")" -gt 3 ] || die "ptdbg printed (almost) nothing for $what"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb (--- gdb, +++ ptdbg)"
	printf '%s\n' "$pt"
}

ljmp=$(line_of longjmp.c 'longjmp(env, v);'); ljmp=${ljmp#longjmp.c:}
catch=$(line_of throw.cc 'thrower(v);'); catch=${catch#throw.cc:}
after=$(line_of throw.cc 'depth += 10;'); after=${after#throw.cc:}
inner=$(line_of throw.cc 'thrower(v + 1);'); inner=${inner#throw.cc:}

# live
CMDS=("break $catch" run next 'p/x $pc' next)
out=$(compare "next over a call whose exception is caught in the frame" throw) || exit 1
grep -q "^$after[[:space:]]" <<<"$out" || die "next did not stop after the catch: $out"
CMDS=("break $inner" run delete next next)
out=$(compare "next over a call whose exception is caught further out" throw) || exit 1
grep -q '^rc=4 depth=14' <<<"$out" || die "next over the throw caught further out did not run to the exit: $out"
CMDS=("break main" run next next next next next 'p $pc' next)
out=$(compare "next over a call that longjmps back into the frame" longjmp) || exit 1
grep -q '^40[[:space:]]*printf' <<<"$out" || die "next over outer(1) did not stop at the printf line: $out"
CMDS=("break middle" run delete next next next)
compare "next over a call that longjmps further out" longjmp >/dev/null || exit 1

# recording
for m in full soft; do
	CMDS=("break $catch" run "record full" next 'p/x $pc' nexti 'p/x $pc' next)
	compare "next over a caught throw, record $m" throw $m >/dev/null || exit 1
	CMDS=("break main" run next next next next "record full" next 'p $pc')
	compare "next over a longjmp, record $m" longjmp $m >/dev/null || exit 1
done

# in the recorded past (the history ends in printf, far enough on)
CMDS=("break $catch" run "record full" 'tbreak printf' continue "echo @@\n" "break throw.cc:$catch"
      reverse-continue next 'p/x $pc' next "break thrower" reverse-continue reverse-continue
      reverse-continue next 'p/x $pc' nexti 'p/x $pc' reverse-nexti stepi stepi stepi nexti
      'p/x $pc' bt)
out=$(compare "next over a throw in the recorded past" throw) || exit 1
grep -q "^$after[[:space:]]" <<<"$out" || die "next in the past did not stop after the catch: $out"
CMDS=("break main" run next next next next "record full" 'tbreak printf' continue "echo @@\n"
      "break outer" reverse-continue reverse-finish delete next 'p $pc' reverse-next reverse-next
      'p $pc' "break middle" reverse-continue delete next 'p $pc' reverse-next reverse-next 'p $pc'
      "break longjmp.c:$ljmp" continue stepi stepi 'p $pc')
out=$(compare "next over a longjmp in the recorded past" longjmp) || exit 1
grep -q '^40[[:space:]]*printf' <<<"$out" || die "next over outer(1) in the past did not stop at the printf line: $out"
exit 0
