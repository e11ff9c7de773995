#!/usr/bin/env bash
# tty TTY / set inferior-tty TTY / show inferior-tty as gdb 13 has them:
# the next run gives the program that terminal (or file) as standard
# input, output and error, and run's redirections apply after it (run >
# FILE with a tty: the output in FILE, the rest on the tty); tty and set
# inferior-tty without an argument go back to the debugger's own; a tty
# that cannot be opened stops the run with gdb's two lines; with
# inferior-tty TTY -- run.  First with files, the same commands under gdb
# and ptdbg: same output, same files (the warning that a file is no
# terminal names the debugger, so GDB becomes ptdbg there).  Then with a
# pty this test makes (python's pty module): cat gets the line written to
# it and its output comes back on the pty, under gdb and under ptdbg.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb
export SHELL=/bin/bash
cat=$(command -v cat)

for d in gdb ptdbg; do
	mkdir -p "$TMPDIR/$d"
	: >"$TMPDIR/$d/t1"
	: >"$TMPDIR/$d/t2"
	: >"$TMPDIR/$d/t3"
	CMDS=('show inferior-tty' 'tty' 'set inferior-tty' 'show inferior-tty' 'tty t1'
	      'show inferior-tty' run 'set inferior-tty /nonexistent/tty' 'show inferior-tty' run
	      'set inferior-tty t2' 'run > out' 'set args' 'show inferior-tty' 'tty' 'show inferior-tty'
	      'with inferior-tty t3 -- run' 'show inferior-tty' 'run 2>err' 'tty t1'
	      'run 3' 'tty x y' 'show inferior-tty' 'set inferior-tty ~/t2' 'show inferior-tty')
	if [ $d = gdb ]; then
		(cd "$TMPDIR/$d" && HOME=$TMPDIR/$d gdb_batch -- "$TESTPROGS/fib" </dev/null) |
			grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' |
			sed "s#$TMPDIR/$d#HOME#g" | normalize >"$TMPDIR/$d.out"
		sed -i 's/^warning: GDB: /warning: ptdbg: /' "$TMPDIR/$d"/t*
	else
		(cd "$TMPDIR/$d" && HOME=$TMPDIR/$d ptdbg_batch -- "$TESTPROGS/fib" </dev/null) |
			sed "s#$TMPDIR/$d#HOME#g" | normalize >"$TMPDIR/$d.out"
	fi
done
diff -u "$TMPDIR/gdb.out" "$TMPDIR/ptdbg.out" >&2 || die "ptdbg differs from gdb (- gdb, + ptdbg)"
diff -ru "$TMPDIR/gdb" "$TMPDIR/ptdbg" >&2 || die "ptdbg's files differ from gdb's"
qgrep -x 'fib(3) = 2' "$TMPDIR/ptdbg/t1" || die "the program's output is not in the tty file"
qgrep -x 'fib(10) = 55' "$TMPDIR/ptdbg/t3" || die "with inferior-tty t3 -- run: not in t3"
qgrep -x 'fib(10) = 55' "$TMPDIR/ptdbg/out" || die "run > out with a tty: not in out"
qgrep -v 'fib' "$TMPDIR/ptdbg/t2" || die "run > out with a tty: the output went to the tty"
qgrep -x '/nonexistent/tty: No such file or directory.' "$TMPDIR/ptdbg.out" ||
	die "no error for a tty that cannot be opened"
note "files: $(wc -l <"$TMPDIR/ptdbg.out") lines and $(cat "$TMPDIR"/ptdbg/* | wc -l) lines of files identical to gdb's"

# on_pty OUT DEBUGGER ARGS...: runs the debugger (@TTY@ in ARGS is the
# pty's name) with a new pty whose input holds a line and an end of file;
# writes the debugger's output and then what came out of the pty to OUT.
cat >"$TMPDIR/on-pty.py" <<'PY'
import os, pty, subprocess, sys, termios
m, s = pty.openpty()
name = os.ttyname(s)
a = termios.tcgetattr(s)
a[3] &= ~termios.ECHO
termios.tcsetattr(s, termios.TCSANOW, a)
os.write(m, b"a line for the program\n\x04")
with open(sys.argv[1], "w") as out:
	cmd = [x.replace("@TTY@", name) for x in sys.argv[2:]]
	p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
			   stderr=subprocess.STDOUT)
	out.write(p.stdout.decode().replace(name, "PTY"))
	os.close(s)
	# (the program has exited: what it wrote is in the pty's buffer; a
	# read after the last of it fails, the slave being closed)
	os.set_blocking(m, False)
	data = b""
	while True:
		try:
			d = os.read(m, 4096)
		except (BlockingIOError, OSError):
			break
		if not d:
			break
		data += d
	out.write("--- on the pty:\n" + data.decode().replace("\r\n", "\n"))
PY
CMDS=('tty @TTY@' 'show inferior-tty' run)
python3 "$TMPDIR/on-pty.py" "$TMPDIR/pty.gdb" gdb -nx -batch -ex 'set pagination off' \
	"${CMDS[@]/#/-ex=}" "$cat" || die "python pty helper failed"
python3 "$TMPDIR/on-pty.py" "$TMPDIR/pty.ptdbg" "$PTDBG" -batch "${CMDS[@]/#/-ex=}" "$cat" ||
	die "python pty helper failed"
for d in gdb ptdbg; do
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' "$TMPDIR/pty.$d" |
		normalize >"$TMPDIR/pty.$d.n"
done
diff -u "$TMPDIR/pty.gdb.n" "$TMPDIR/pty.ptdbg.n" >&2 || die "pty: ptdbg differs from gdb (- gdb, + ptdbg)"
sed -n '/^--- on the pty:$/,$p' "$TMPDIR/pty.ptdbg.n" | qgrep -x 'a line for the program' ||
	die "pty: cat's output is not on the pty"
[ "$(grep -c -x 'a line for the program' "$TMPDIR/pty.ptdbg.n")" = 1 ] ||
	die "pty: the program's output also went elsewhere"
note "pty: $(wc -l <"$TMPDIR/pty.ptdbg.n") lines identical to gdb's"

# a real terminal and run's redirection: cat reads the pty, writes to out
for d in gdb ptdbg; do
	mkdir -p "$TMPDIR/pty-$d"
	if [ $d = gdb ]; then
		dbg=(gdb -nx -batch -ex 'set pagination off')
	else
		dbg=("$PTDBG" -batch)
	fi
	(cd "$TMPDIR/pty-$d" && python3 "$TMPDIR/on-pty.py" "$TMPDIR/pty2.$d" "${dbg[@]}" \
		-ex 'tty @TTY@' -ex 'run > out' "$cat") || die "python pty helper failed"
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' "$TMPDIR/pty2.$d" |
		normalize >"$TMPDIR/pty2.$d.n"
done
diff -u "$TMPDIR/pty2.gdb.n" "$TMPDIR/pty2.ptdbg.n" >&2 ||
	die "pty and run > out: ptdbg differs from gdb (- gdb, + ptdbg)"
diff -u "$TMPDIR/pty-gdb/out" "$TMPDIR/pty-ptdbg/out" >&2 || die "pty and run > out: files differ"
qgrep -x 'a line for the program' "$TMPDIR/pty-ptdbg/out" || die "pty and run > out: not in out"
note "pty and run > out: $(wc -l <"$TMPDIR/pty2.ptdbg.n") lines and the file identical to gdb's"
