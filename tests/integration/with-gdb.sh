#!/usr/bin/env bash
# with SETTING [VALUE] [-- COMMAND] (alias w) as gdb 13 has it (and set
# and show print elements, which w print elements 3 -- p arr needs): the
# setting changes for the nested command and is put back after, also when
# that command fails (show after each says so); nested withs; the value
# runs to the first "--" (for args spaces and all); gdb's errors for no
# arguments, no setting before "--", no command to run again (batch mode
# has no line before), an unknown setting or print/record/breakpoint
# subcommand, a set command that is not a setting (variable,
# environment), and a bad value (set's own message).  ptdbg and gdb run the
# same commands on values at a breakpoint; outputs must be identical.
. "$(dirname "$0")/lib.bash"
need_prereqs values
need_gdb

at=$(line_of values.c 'stop here: main')
CMDS=('with' 'w' 'with foo -- p 1' 'with print' 'with print -- p 1'
	'with print pretty -- show print pretty' 'show print pretty' 'with print pretty'
	'with print pretty off -- show print pretty' 'with listsize 3 -- show listsize'
	'show listsize' 'with listsize -- show listsize' 'with listsize x -- show listsize'
	'with variable x = 3 -- p 1' 'with args a b -- show args' 'show args'
	'with confirm off -- show confirm'
	'with print pretty -- with listsize 4 -- show listsize'
	'with print pretty -- with listsize 4 -- show print pretty' 'show listsize'
	'with print pretty --' 'with print pretty -- nosuchcmd' 'show print pretty'
	'with environment FOO bar -- show environment FOO'
	'with breakpoint pending on -- show breakpoint pending' 'show breakpoint pending'
	'with print frame-arguments all -- show print frame-arguments'
	'with print frame-arguments -- p 1' 'with print frame-arguments bogus -- p 1'
	'with pri pre -- show print pretty' 'with $x 3 -- p 1' 'with print foo bar -- p 1'
	'with -- p 1' 'with  print   pretty   on   --   p 1' 'with print pretty on--p 2'
	'with print pretty on -- with foo -- p 1'
	'with print frame-arg scal -- show print frame-arguments'
	'with listsize unlimited -- show listsize' 'with print pretty xx -- p 1'
	'with breakpoint -- p 1' 'with breakpoint pending -- p 1' 'with confirm -- show confirm'
	'with args -- show args'
	'with record instruction-history-size 3 -- show record instruction-history-size'
	'show record instruction-history-size' 'with record -- p 1'
	'with disable-randomization off -- show disable-randomization'
	'show disable-randomization' 'with pagination off -- p 2'
	"break $at" run
	'with print pretty -- p pt' 'p pt' 'w print pretty -- p pts' 'p pts'
	'with print pretty -- p nosuch' 'show print pretty'
	'with print frame-arguments all -- bt' 'bt' 'with print frame-arguments none -- frame'
	'with listsize 3 -- list main' 'list' 'with listsize 2 -- with print pretty -- p pt'
	'with exec-direction reverse -- p 1' 'show exec-direction' 'w print pretty on -- info locals'
	'show print elements' 'w print elements 3 -- p arr' 'p arr' 'with print elements 2 -- p buf'
	'with print elements 4 -- p g_rec.next->name' 'with print elements 1 -- p g_zero'
	'show print elements' 'set print elements 4' 'p g_arr' 'with print elements unlimited -- p g_arr'
	'show print elements' 'set print elements 0' 'show print elements' 'set print elements -1'
	'set print elements' 'set print elements x' 'with print elements -- p 1')
ptdbg_batch -- "$TESTPROGS/values" </dev/null | normalize >"$TMPDIR/with.ptdbg"
gdb_batch -- "$TESTPROGS/values" </dev/null | normalize |
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' >"$TMPDIR/with.gdb"
diff -u "$TMPDIR/with.gdb" "$TMPDIR/with.ptdbg" >&2 || die "ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep -e '^Pretty formatting of structures is on\.$' "$TMPDIR/with.ptdbg" || die "no with print pretty"
qgrep -e '^  x = 3,$' "$TMPDIR/with.ptdbg" || die "no pretty value"
qgrep -e '^\$[0-9]* = {10, 20, 30\.\.\.}$' "$TMPDIR/with.ptdbg" || die "no with print elements"
note "$(wc -l <"$TMPDIR/with.ptdbg") lines identical to gdb's"
