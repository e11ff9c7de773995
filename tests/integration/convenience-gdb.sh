#!/usr/bin/env bash
# gdb's own convenience variables and functions, evaluated by the
# debugger: $_thread, $_gthread, $_inferior, $_siginfo (at a SIGSEGV of
# testprogs/segfault and at a breakpoint: gdb's struct siginfo, members,
# ptype, whatis), $_streq, $_strlen, $_memeq, $_regex, $_as_string,
# $_isvoid, the $_caller_is family with its frame count, $_gdb_setting
# and $_gdb_setting_str, with the errors of wrong arguments (Python's
# exceptions, as gdb prints them); in print and in breakpoint conditions
# that stop and do not stop.  Compared line for line with gdb 13.  In the
# recorded past the functions that need only memory and frames agree
# with gdb record full's, and $_siginfo says it cannot be read.
. "$(dirname "$0")/lib.bash"

need_prereqs fib segfault
need_gdb
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' | normalize |
		sed -e 's/argv=0x[0-9a-f]*/argv=ARGV/' -e 's/name=0x[0-9a-f]*/name=ADDR/' \
		    -e 's/^\(\$[0-9]* = \)0x[0-9a-f]* "colour"/\1ADDR "colour"/'
}

# No program: the variables gdb has then, the functions' errors.
CMDS=('p $_thread' 'p $_gthread' 'p $_inferior' 'p $_siginfo' 'ptype $_siginfo'
	'p $_caller_is("main")' 'p $_any_caller_matches("m")' 'p $_streq("ab", "ab")'
	'p $_streq("ab", "abc")' 'p $_strlen("hello")' 'whatis $_strlen("hello")'
	'p $_as_string(12 * 3)' 'whatis $' 'p $_isvoid($nosuch)' 'p $_isvoid(1)'
	'p $_isvoid()' 'p $_memeq("abc", "abd", 2)' 'p $_memeq("abc", "abd", 3)'
	'p $_memeq("abc", "abd", -1)' 'p $_regex("hello world", "h.*o w")'
	'p $_regex("hello", "ell")' 'p $_streq("a")' 'p $_streq()' 'p $_memeq(1)'
	'p $_strlen("a", "b")' 'p $_as_string()' 'p $_caller_is("a", 1, 2)'
	'p $_strlen(1)' 'p $_streq' 'whatis $_caller_is' 'p $_isvoid($_streq)'
	'p $_nosuch(1)' 'p $_gdb_setting("listsize")' 'p $_gdb_setting_str("listsize")'
	'p $_gdb_setting("print elements")' 'whatis $' 'p $_gdb_setting("print pretty")'
	'p $_gdb_setting_str("print pretty")' 'p $_gdb_setting("breakpoint pending")'
	'p $_gdb_setting_str("breakpoint pending")' 'p $_gdb_setting("exec-direction")'
	'whatis $' 'p $_gdb_setting("args")' 'whatis $' 'p $_gdb_setting("print pre")'
	'p $_gdb_setting("print")' 'p $_gdb_setting("nosuch")' 'p $_gdb_setting()'
	'p $_gdb_setting(1)' 'p $_gdb_setting("a", "b")' 'p $_gdb_setting_str()'
	'p $_gdb_setting("record instruction-history-size")' 'whatis $'
	'p $_gdb_setting("pagination")' 'p $_gdb_setting_str("height")' 'p $_shell("true")')
compare_gdb none "$TESTPROGS/fib"

# At a breakpoint: the stop's SIGTRAP, threads, frames, strings of the
# program.
CMDS=('break fib' 'run' 'p $_thread' 'p $_gthread' 'whatis $_thread' 'p $_inferior'
	'p $_siginfo' 'whatis $_siginfo' 'ptype $_siginfo' 'p $_siginfo.si_signo'
	'p/x $_siginfo.si_code' 'whatis $_siginfo._sifields' 'whatis $_siginfo._sifields._pad'
	'ptype $_siginfo._sifields._sigfault' 'ptype $_siginfo._sifields._sigchld'
	'ptype $_siginfo._sifields._timer' 'whatis $_siginfo._sifields._kill.si_pid'
	'p sizeof($_siginfo)' 'p $_siginfo.nosuch' 'p $_caller_is("main")'
	'p $_caller_is("fib")' 'p $_caller_is("fib", 0)' 'p $_caller_is("main", 2)'
	'p $_caller_is("main", -1)' 'p $_caller_matches("ma")' 'p $_caller_matches("ain")'
	'p $_any_caller_is("fib")' 'p $_any_caller_is("main", 0)' 'p $_any_caller_is("main", 5)'
	'p $_any_caller_matches("^m", 1)' 'whatis $_caller_is("main")' 'p $_as_string(n)'
	'p $_as_string(fib)' 'p $_as_string("x")' 'p $_strlen($_as_string(n * 100))'
	'p $_memeq(&n, &n, 4)' 'p $_memeq(&n, 0, 4)' 'p $_memeq(n, n, 4)' 'p $_streq(n, "a")'
	'up' 'p $_caller_is("main", 0)' 'p $_any_caller_is("fib", 0)' 'down'
	'p $_strlen(argv)' 'p $_caller_is(1)' 'p $foo(1)')
compare_gdb breakpoint "$TESTPROGS/fib"

# Conditions: only the call of fib from main stops; then the call of
# fib(8) whose caller is fib(10), two frames below main; a condition
# that fails says so and stops.
CMDS=('break fib if $_caller_is("main")' 'run' 'p n' 'continue' 'delete'
	'break fib if $_any_caller_is("main", 2) && n == 8' 'run' 'bt' 'delete'
	'break fib' 'condition 3 n == 1 && $_caller_is("fib") && !$_any_caller_is("main", 3)'
	'continue' 'bt' 'condition 3 $_caller_is()' 'continue' 'info breakpoints')
compare_gdb conditions "$TESTPROGS/fib"

# The SIGSEGV: its siginfo, the frames it happened in, a program's string.
CMDS=('set confirm off' 'break lookup if $_streq(name, "colour")' 'run' 'p name' 'p $_caller_is("process")'
	'p $_any_caller_matches("^ma", 2)' 'p $_any_caller_matches("^ma", 3)' 'continue'
	'p $_siginfo' 'p $_siginfo.si_signo' 'p $_siginfo._sifields._sigfault.si_addr'
	'p $_siginfo._sifields._sigfault' 'p/x $_siginfo.si_code' 'p $_as_string($_siginfo.si_signo)'
	'p $_siginfo.si_signo == 11 && $_caller_is("process")' 'p $_thread' 'kill'
	'p $_siginfo' 'p $_thread')
compare_gdb segv "$TESTPROGS/segfault"

# The recorded past: the functions over frames and memory as gdb record
# full's; $_siginfo (gdb's is the present's) cannot be read there.
CMDS=('break 13' 'run' 'record' 'next' 'next' 'reverse-step' 'p $_caller_is("fib")'
	'p $_any_caller_is("main", 20)' 'p $_any_caller_is("main", 5)' 'p $_streq("x", "x")'
	'p $_thread' 'p $_caller_matches("f", 9)' 'p $_caller_is("main", 10)')
compare_gdb past "$TESTPROGS/fib"
CMDS=('break 13' 'run' 'record' 'next' 'next' 'reverse-step' 'p $_siginfo'
	'p $_siginfo.si_signo' 'whatis $_siginfo')
ptdbg_batch -- "$TESTPROGS/fib" | norm >"$TMPDIR/past-siginfo"
[ "$(grep -c '^Unable to read siginfo$' "$TMPDIR/past-siginfo")" = 2 ] ||
	{ cat "$TMPDIR/past-siginfo" >&2; die "past: \$_siginfo did not say it cannot be read"; }
qgrep '^type = struct siginfo$' "$TMPDIR/past-siginfo" || die "past: no type of \$_siginfo"
note "past: \$_siginfo cannot be read, its type is gdb's"
