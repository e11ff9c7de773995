#!/usr/bin/env bash
# Breakpoint command lists as gdb 13 runs them (`commands [N...]` ... `end`):
# from a -x file and from standard input; `silent` first hides the stop;
# `continue` in a list resumes and the next stop's list runs (in a loop,
# not nested); the lines after a resuming command are dropped; an empty
# list clears it; `info breakpoints` lists the commands; errors (no
# breakpoint, bad numbers).  Also in the recorded past: a list runs at a
# breakpoint hit by reverse-continue.  Compared with gdb's output.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g' -e 's/process [0-9]*/process PID/'
}
cd "$TMPDIR" || die "no TMPDIR"
l=$(line_of fib.c 'r = fib(n);')
l=${l#fib.c:}
cat >a.cmd <<EOT
break fib if n == 1
commands
silent
print n
bt 1
continue
end
break $l
commands 2
print r
print "after"
end
info breakpoints
run
info breakpoints
commands 1 2
print 1
continue
print "never"
end
info breakpoints
run
commands 2
end
info breakpoints
EOT
commands
break fib if n == 1
commands
silent
print n
bt 1
continue
end
break $l
commands 2
print r
print "after"
end
commands 2-3
end
commands 7
info breakpoints
commands 1 2
print 1
continue
print "never"
end
info breakpoints
delete 1
run
info breakpoints
EOT
cat >b.cmd <<EOT
break main
run
record
break fib
commands
silent
print \$pc
end
continue
continue
continue
reverse-continue
reverse-continue
info breakpoints
EOT
# errors, each in an -ex of its own
CMDS=(commands 'commands 7' 'break fib' 'commands 9' 'commands 3-1' end)
ptdbg_batch -- "$TESTPROGS/fib" | norm >p.e
gdb_batch -- "$TESTPROGS/fib" | norm >g.e
failed=0
diff -u g.e p.e >&2 || { note "differs from gdb: errors"; failed=1; }
for f in a b; do
	"$PTDBG" -batch -x $f.cmd "$TESTPROGS/fib" 2>&1 | norm >p.$f
	gdb -nx -batch -x $f.cmd "$TESTPROGS/fib" 2>&1 | norm >g.$f
	diff -u g.$f p.$f >&2 || { note "differs from gdb: $f.cmd"; failed=1; }
done
# from standard input, as typed (not a terminal: no prompt text)
printf 'break fib\ncommands\nsilent\nprint n\nend\nrun\ncontinue\nkill\n' >c.cmd
"$PTDBG" -q -nx "$TESTPROGS/fib" <c.cmd 2>&1 | norm | sed 's/(ptdbg)/(P)/g' >p.c
gdb -q -nx "$TESTPROGS/fib" <c.cmd 2>&1 | norm | sed 's/(gdb)/(P)/g' | grep -v '^Reading symbols' >g.c
sed -i '/^Reading symbols/d' p.c
diff -u g.c p.c >&2 || { note "differs from gdb: commands from stdin"; failed=1; }
[ "$failed" = 0 ] || die "breakpoint commands differ from gdb"
qgrep '^\$[0-9]* = 1$' p.a || die "the silent list did not print n"
qgrep '^        print n$' p.a || die "info breakpoints does not list the commands"
qgrep '^\$[0-9]* = 2$' p.b || die "the list did not run in the past"
exit 0
