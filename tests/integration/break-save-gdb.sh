#!/usr/bin/env bash
# Breakpoint commands a gdb user reaches for, compared with gdb 13:
# save breakpoints FILE (gdb's lines: break/tbreak SPEC, "  condition
# $bpnum", "  ignore $bpnum", the command lists, "disable $bpnum",
# watchpoints) read back with `source` into a new session, rbreak REGEX
# (a breakpoint on every matching function with its declaration, "<function,
# no debug info> NAME;" for ELF symbols), and enable once|count N|delete
# (dis/del dispositions, "disable after next N hits") live and in the
# recorded past (gdb record full; ptdbg's past arguments may be
# <unavailable>, which past_args allows).  The saved files must be
# identical too.
. "$(dirname "$0")/lib.bash"
need_prereqs values fib
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' | normalize
}

# compare NAME PROG REGEX [past]: identical outputs containing REGEX
compare() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	if [ "${4:-}" = past ]; then
		past_args "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" ||
			die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	elif ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	fi
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

# 1. save breakpoints of every kind; each debugger saves its own file
printf 'break helper\ncommands\nsilent\nprint depth\nend\n' >"$TMPDIR/cmds.gdb"
save() {
	CMDS=("source $TMPDIR/cmds.gdb" 'break make_big' 'break make_point' 'enable once 2'
		'enable count 2 3' 'enable delete 1' 'break *0x401198' 'break values.c:80'
		'condition 5 n > 2' 'ignore 4 2' 'disable 2' 'rwatch g_counter' 'awatch g_ratio'
		'tbreak 111' "save breakpoints $TMPDIR/saved.$1" 'save x' 'save b'
		"save breakpoints $TMPDIR/no/such/dir/f")
}
save ptdbg
ptdbg_batch -- "$TESTPROGS/values" | norm >"$TMPDIR/save.ptdbg"
save gdb
gdb_batch -- "$TESTPROGS/values" | norm | sed "s#saved.gdb#saved.ptdbg#" >"$TMPDIR/save.gdb"
diff -u "$TMPDIR/save.gdb" "$TMPDIR/save.ptdbg" >&2 || die "save: ptdbg differs from gdb"
diff -u "$TMPDIR/saved.gdb" "$TMPDIR/saved.ptdbg" >&2 || die "save: the files differ"
qgrep -e '^  condition \$bpnum n > 2$' "$TMPDIR/saved.ptdbg" || die "save: no condition line"
qgrep -e '^tbreak helper$' "$TMPDIR/saved.ptdbg" || die "save: enable delete is not a tbreak"
note "save: $(wc -l <"$TMPDIR/saved.ptdbg") lines saved as gdb saves them"

# 2. the file read back into a new session, then rbreak (whose
#    breakpoints are saved again)
CMDS=("source $TMPDIR/saved.gdb" 'info breakpoints' 'rbreak ^make_' 'rbreak ^zzz'
	'rbreak ^_start$' 'rbreak plt$' 'rbreak [' 'info breakpoints' 'print $bpnum'
	"save breakpoints $TMPDIR/again")
compare load values '^struct big make_big(long);$'
qgrep -e '^<function, no debug info> printf@plt;$' "$TMPDIR/load.ptdbg" || die "load: no ELF symbol"
qgrep -e '^8       breakpoint      del  y' "$TMPDIR/load.ptdbg" || die "load: tbreak not kept"

# 3. dispositions live: once disables, count N counts stops (after the
#    ignored hits), delete makes a temporary breakpoint
CMDS=('break make_big' 'break make_point' 'break helper' 'break half' 'enable once 1'
	'enable count 2 2-3' 'ignore 3 1' 'enable delete 4' 'info breakpoints' 'run'
	'info breakpoints' continue continue continue 'info breakpoints' 'enable once'
	'enable count' 'enable count 2' 'enable delete 9' 'enable once 1 2' 'enable 1'
	'info breakpoints')
compare live values 'disable after additional 2 hits'

# 4. and in the recorded past
CMDS=('break main' run record 'break fib' continue continue continue 'enable once 2'
	reverse-continue 'info breakpoints' reverse-continue 'enable count 2 2' continue
	continue 'info breakpoints' 'enable delete 2' reverse-continue 'info breakpoints')
compare past fib '^Temporary breakpoint 2, fib' past
