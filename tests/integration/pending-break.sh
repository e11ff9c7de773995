#!/usr/bin/env bash
# Pending breakpoints against gdb 13:
#  - `break plugin_compute` before testprogs/dlopen loads its plugin: gdb's
#    "Make breakpoint pending on future shared library load?" answered N
#    as gdb answers it when input is not a terminal (no breakpoint);
#  - with `set breakpoint pending on` the breakpoint is pending (gdb's
#    narrow <PENDING> table) and is resolved when dlopen loads the library:
#    the program stops in plugin_compute, also while recording with step
#    and soft (gdb's record full cannot record through dlopen on this CPU,
#    so those runs are checked against the live stop), a reverse-finish
#    from there reaches the call, and `continue` back to the breakpoint,
#    the end of the history, stops there as record full does ("No more
#    reverse-execution history." and the frame);
#  - dlclose makes a breakpoint in the library pending again, with gdb's
#    warning, and the next dlopen stops there again (testprogs/dlloop);
#  - a libc function before run (break printf) sits at the program's PLT
#    entry and moves into libc once it is loaded, at gdb's addresses;
#  - after exec: a pending `break fib` in testprogs/exec is resolved in the
#    new program;
#  - set breakpoint pending off refuses at once; show breakpoint pending.
. "$(dirname "$0")/lib.bash"
need_prereqs dlopen dlloop exec fib
need_gdb

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' |
		sed -E -e 's/process [0-9]+/process PID/' | norm_stack
}

compare() {
	local what=$1 prog=$2 pt gd
	pt=$(ptdbg_batch -- "$TESTPROGS/$prog" | clean)
	[ $? -le 1 ] || die "ptdbg crashed ($what)"
	gd=$(gdb_batch -- "$TESTPROGS/$prog" | clean)
	note "ptdbg ($what):"; note "$pt"
	[ -n "$pt" ] || die "ptdbg printed nothing for $what"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb"
}

# (gdb_batch says "set confirm off", which answers the query silently: the
# default, confirm on, is what is compared here, and then confirm off)
pt=$("$PTDBG" -batch -ex "break plugin_compute" -ex "info breakpoints" -ex run "$TESTPROGS/dlopen" 2>&1 | clean)
gd=$(gdb -nx -batch -ex "break plugin_compute" -ex "info breakpoints" -ex run "$TESTPROGS/dlopen" 2>&1 | clean)
note "ptdbg (query):"; note "$pt"
echo "$pt" | qgrep '^Make breakpoint pending on future shared library load' || die "no query"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "the query answered N in batch mode differs from gdb"
CMDS=("set confirm off" "break plugin_compute" "info breakpoints" run)
compare "the query with confirm off" dlopen
CMDS=("set breakpoint pending on" "break plugin_compute" "tbreak nosuch" "show breakpoint pending"
      "info breakpoints" run "info breakpoints" "set breakpoint pending off" "break nosuch2"
      "set breakpoint pending auto" "show breakpoint pending")
compare "pending, resolved at dlopen" dlopen
CMDS=("break main" run "set breakpoint pending on" "break plugin_compute" c "info breakpoints")
compare "pending while running" dlopen

for m in step soft; do
	CMDS=("break main" run "record $m" "set breakpoint pending on" "break plugin_compute" c
	      reverse-finish c)
	out=$(ptdbg_batch -- "$TESTPROGS/dlopen") || die "ptdbg failed ($m): $out"
	note "ptdbg (record $m):"; note "$out"
	[ "$(echo "$out" | grep -c '^Breakpoint 2, plugin_compute ')" = 1 ] ||
		die "record $m: the pending breakpoint did not stop in plugin_compute"
	echo "$out" | sed -n '/^No more reverse-execution history.$/{n;p;}' |
		qgrep '^plugin_compute (x=6) at plugin.c:[0-9]*$' ||
		die "record $m: continue did not stop at the end of the history, in plugin_compute"
	echo "$out" | qgrep '^0x[0-9a-f]* in main (argc=[^,]*, argv=[^)]*) at dlopen.c:[0-9]*$' ||
		die "record $m: reverse-finish did not get back to the call in main"
done

CMDS=("set breakpoint pending on" "break fib" run "info breakpoints" c)
compare "pending across exec" exec

# dlclose: a breakpoint in the library becomes pending again (gdb's
# warning) and stops again when testprogs/dlloop loads the library anew,
# also one made while the library was loaded, and while recording
CMDS=("set breakpoint pending on" "break plugin_compute" run c c "info breakpoints")
compare "dlclose and dlopen again" "dlloop"
CMDS=("set breakpoint pending on" "break plugin_compute" run delete "break plugin_compute" c c
      "info breakpoints")
compare "a breakpoint made while loaded, across dlclose" "dlloop"
for m in step soft; do
	CMDS=("set breakpoint pending on" "break plugin_compute" run "record $m" c c)
	out=$(ptdbg_batch -- "$TESTPROGS/dlloop" 3) || die "ptdbg failed ($m): $out"
	[ "$(echo "$out" | grep -c '^Breakpoint 1, plugin_compute ')" = 3 ] ||
		die "record $m: the breakpoint did not stop in every load of the library: $out"
done

# a libc function before run: at its PLT entry (gdb's <printf@plt>), moved
# into libc when libc is loaded; the same addresses and the stop as gdb
CMDS=("break printf" "info breakpoints" run "info breakpoints" "p/x \$pc")
pt=$(ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg failed (break printf): $pt"
gd=$(gdb_batch -- "$TESTPROGS/fib")
note "ptdbg (break printf):"; note "$pt"
echo "$pt" | qgrep '<printf@plt>$' || die "break printf before run is not at printf@plt"
for re in '^Breakpoint 1 at 0x[0-9a-f]*$' '^1 .*<printf@plt>$' '^1 .*0x00007[0-9a-f]* in ' '^\$1 = '; do
	a=$(echo "$gd" | grep -E "$re" | sed -E 's/ in .*//')
	b=$(echo "$pt" | grep -E "$re" | sed -E 's/ in .*//')
	[ -n "$a" ] && [ "$a" = "$b" ] || die "break printf: gdb '$a', ptdbg '$b' ($re)"
done
echo "$pt" | qgrep '^Breakpoint 1, __printf (format=0x[0-9a-f]* "fib(%d) = %d\\n") at ' || die "break printf did not stop in libc's printf"

exit 0
