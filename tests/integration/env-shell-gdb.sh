#!/usr/bin/env bash
# The shell's surroundings as gdb 13 has them: set/show listsize and the
# lines list then shows (list FUNCTION, list, list -, N,, ,M, FILE:LINE,
# out of range: "Line number 26 out of range; fib.c has 25 lines."),
# pwd and cd (list still finds the sources after cd), shell CMD and !CMD,
# set/unset/show environment with gdb's parsing of "VAR VALUE", "VAR=VALUE",
# "VAR = VALUE" and "VAR" (a null value).  ptdbg and gdb run the same
# commands from a scratch directory; outputs must be identical.  Then the
# environment reaches the program at run: after unset environment and
# two set environment, its only environment strings are those two (gdb
# starts programs through a shell that adds its own, so that part checks
# ptdbg alone).
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

mkdir -p "$TMPDIR/work/sub"
cd "$TMPDIR/work" || die "cannot cd to $TMPDIR/work"
export HOME=$TMPDIR/work/sub H5_FOO0=x
# shell without a command starts $SHELL interactive: one that says so and
# reads nothing (an interactive shell would read whatever stdin the test
# runner has, which is shared with other tests)
printf '#!/bin/sh\nif [ "$1" = -c ]; then shift; exec /bin/sh -c "$@"; fi\necho "(an interactive shell)"\n' \
	>"$TMPDIR/fake-shell"
chmod +x "$TMPDIR/fake-shell"
export SHELL=$TMPDIR/fake-shell
CMDS=('show environment H5_FOO' 'set environment H5_FOO bar baz' 'show environment H5_FOO'
	'set environment H5_FOO=qux' 'show environment H5_FOO' 'set environment H5_FOO = spaced'
	'show environment H5_FOO' 'set environment H5_BAR' 'show environment H5_BAR'
	'unset environment H5_FOO' 'show environment H5_FOO' 'set environment'
	'set environment =x' 'unset environment NOPE' 'show environment H5_FOO0' 'pwd'
	"cd $TMPDIR" 'pwd' 'cd' 'pwd' 'cd /nonexistent' 'cd ~' 'pwd' 'shell echo hi; exit 3'
	'!echo bang' 'shell' 'show listsize' 'set listsize 5' 'show listsize' 'list main' list
	'list -' 'list 5,' 'list ,30' 'list fib.c:20' 'list fib.c:40' 'set listsize unlimited'
	'show listsize' 'list 20' 'set listsize 0' 'show listsize' 'set listsize -1'
	'set listsize x' 'set listsize 3' 'list 10' 'set listsize 10' 'list 30' 'list 30,35'
	'list 26,' 'unset environment' 'show environment' 'pwd x' 'unset foo')
ptdbg_batch -- "$TESTPROGS/fib" </dev/null | normalize | sed "s#$TMPDIR#TMP#g" >"$TMPDIR/env.ptdbg"
gdb_batch -- "$TESTPROGS/fib" </dev/null | normalize | sed "s#$TMPDIR#TMP#g" >"$TMPDIR/env.gdb"
diff -u "$TMPDIR/env.gdb" "$TMPDIR/env.ptdbg" >&2 || die "ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep -e '^H5_FOO = spaced$' "$TMPDIR/env.ptdbg" || die "no environment variable shown"
qgrep -e '^Working directory TMP/work/sub\.$' "$TMPDIR/env.ptdbg" || die "cd did not move"
qgrep -e '^bang$' "$TMPDIR/env.ptdbg" || die "!CMD did not run"
qgrep -e '^(an interactive shell)$' "$TMPDIR/env.ptdbg" || die "shell did not start \$SHELL"
qgrep -e '^Line number 26 out of range; fib.c has 25 lines\.$' "$TMPDIR/env.ptdbg" ||
	die "no out of range message"
note "$(wc -l <"$TMPDIR/env.ptdbg") lines identical to gdb's"

# what the program gets: argv[argc + 1] and on are its environment strings
CMDS=('unset environment' 'set environment H5_FOO bar baz' 'set environment H5_EMPTY'
	'break main' run 'print argv[1]' 'print argv[2]' 'print argv[3]' 'print argv[4]')
out=$(ptdbg_batch -- "$TESTPROGS/fib" </dev/null)
printf '%s\n' "$out" | qgrep -e '^\$2 = 0x[0-9a-f]* "H5_FOO=bar baz"$' ||
	die "the program's environment lacks H5_FOO: $out"
printf '%s\n' "$out" | qgrep -e '^\$3 = 0x[0-9a-f]* "H5_EMPTY="$' ||
	die "the program's environment lacks H5_EMPTY: $out"
printf '%s\n' "$out" | qgrep -e '^\$4 = 0x0$' || die "the program got more environment: $out"
note "the program's environment is the one set"
