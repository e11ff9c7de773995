#!/usr/bin/env bash
# The recording status line of forward motions: on a terminal a line
# "\rRecording: N instructions, B, R insn/s" is drawn in place and erased
# before the stop is printed; with standard output a pipe nothing of it is
# ever written.  No timing: PTDBG_STATUS_DELAY_MS=0 makes the line due at
# once, so whether it appears depends only on where the output goes.  (The
# delay and redraw decisions are unit-tested: tests/unit/test-status.c.)
. "$(dirname "$0")/lib.bash"
need_prereqs fib
command -v python3 >/dev/null || die "python3 is needed to give ptdbg a terminal"
export PTDBG_STATUS_DELAY_MS=0

for m in step soft; do
	CMDS=("break main" run "record $m" continue "info record")
	out=$(ptdbg_batch -- "$TESTPROGS/fib" 15) || die "ptdbg failed ($m): $out"
	echo "$out" | qgrep '^fib(15) = 610$' || die "the program did not run ($m): $out"
	if printf '%s' "$out" | qgrep $'\r' || echo "$out" | qgrep 'Recording:'; then
		die "record $m: the status line reached a pipe: $(printf '%s' "$out" | od -c | head)"
	fi

	# the same on a terminal: the line is drawn, then erased, then the stop
	tty_out=$(python3 - "$PTDBG" "$m" "$TESTPROGS/fib" <<'PY'
import os, pty, subprocess, sys
ptdbg, m, prog = sys.argv[1:4]
master, slave = pty.openpty()
p = subprocess.Popen([ptdbg, "-batch", "-ex", "break main", "-ex", "run", "-ex", "record " + m,
                      "-ex", "continue", "--args", prog, "15"],
                     stdin=slave, stdout=slave, stderr=slave, close_fds=True)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
p.wait()
sys.stdout.write(data.decode("utf-8", "replace"))
sys.exit(p.returncode)
PY
	) || die "ptdbg on a terminal failed ($m): $tty_out"
	printf '%s' "$tty_out" | qgrep $'\rRecording: [0-9]* instructions, [0-9]* [a-zA-Z]*, [0-9]* insn/s\e\[K' ||
		die "record $m: no status line on a terminal: $(printf '%s' "$tty_out" | od -c | tail -n 20)"
	printf '%s' "$tty_out" | qgrep $'\r\e\[K' || die "record $m: the status line was not erased"
	printf '%s' "$tty_out" | qgrep 'fib(15) = 610' || die "record $m: the program output is missing"
done
exit 0
