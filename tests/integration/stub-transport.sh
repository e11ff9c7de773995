#!/usr/bin/env bash
# ptdbg-server's transport and its bad clients, with raw packets:
#  - --listen 127.0.0.1:0: one client; a second is refused; the interrupt
#    byte stops a running program (T02), also one sent in the same write
#    as the resume packet; a client that disconnects in the
#    middle of a packet ends the server cleanly, the launched program killed;
#  - --unix PATH with --attach PID: a client that disconnects while the
#    program runs leaves it running and untraced;
#  - bad command lines and programs: a message and a nonzero exit.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"
command -v python3 >/dev/null || die "python3 is needed for the Unix socket client"

# rsp_recv FD: prints the next reply's payload (acks dropped)
rsp_recv() {
	local data ck
	IFS= read -r -d '#' -t 120 -u "$1" data || die "no reply from the server"
	IFS= read -r -n 2 -t 120 -u "$1" ck || die "no checksum from the server"
	data=${data//+/}
	printf '%s\n' "${data#\$}"
}

# 1. TCP: one client at a time, interrupt, disconnect mid-packet.
mkfifo "$TMPDIR/err"
"$SERVER" --listen 127.0.0.1:0 -- /bin/sleep 600 2>"$TMPDIR/err" &
spid=$!
on_exit "kill -9 $spid 2>/dev/null"
exec 7<"$TMPDIR/err"
port= prog=
while IFS= read -r -t 120 -u 7 line; do
	note "server: $line"
	case $line in
	"ptdbg-server: started process "*) prog=${line##* } ;;
	"Listening on port "*) port=${line##* }; break ;;
	esac
done
[ -n "$port" ] && [ "$port" != 0 ] || die "the server did not say which port it listens on"
# keep reading the server's messages into a file
cat <&7 >"$TMPDIR/err.rest" &
exec 5<>"/dev/tcp/127.0.0.1/$port" || die "cannot connect to port $port"
rsp_pkt 'qSupported:multiprocess+' >&5
r=$(rsp_recv 5)
[[ $r == *PacketSize=* ]] || die "qSupported reply '$r'"
rsp_pkt '?' >&5
r=$(rsp_recv 5)
[[ $r == T05thread:p* ]] || die "? reply '$r'"
[ -z "$prog" ] && prog=$(sed -n 's/^T05thread:p\([0-9a-f]*\)\..*/\1/p' <<<"$r") && prog=$((16#$prog))
# the listener is closed once a client is in: a second one is refused
if (exec 6<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	die "a second client was accepted"
fi
# malformed and unknown packets get replies, the connection goes on
rsp_pkt 'm4000zz' >&5
r=$(rsp_recv 5); [[ $r == E* ]] || die "malformed m got '$r'"
rsp_pkt 'qNoSuchThing' >&5
r=$(rsp_recv 5); [ -z "$r" ] || die "unknown packet got '$r'"
# another process's threads: an error, and nothing runs (the program
# would sleep on, and the next reply be its stop)
other=$(printf '%x' $((prog + 1)))
rsp_pkt "vCont;c:p$other.-1" >&5
r=$(rsp_recv 5); [[ $r == E* ]] || die "vCont for process $other got '$r'"
rsp_pkt "Hgp$other.$(printf '%x' "$prog")" >&5
r=$(rsp_recv 5); [[ $r == E* ]] || die "Hg for process $other got '$r'"
# a packet longer than PacketSize: dropped, answered E01
{ printf '$'; head -c 20000 /dev/zero | tr '\0' a; printf '#%02x' $((20000 * 97 % 256)); } >&5
r=$(rsp_recv 5); [ "$r" = E01 ] || die "oversized packet got '$r'"
printf '$g#00' >&5 # a bad checksum: '-', then gdb would send it again
IFS= read -r -n 1 -t 120 -u 5 c || die "no answer to a bad checksum"
[ "$c" = - ] || die "bad checksum answered '$c'"
# the program runs; the interrupt byte stops it
rsp_pkt 'vCont;c' >&5
printf '\003' >&5
r=$(rsp_recv 5)
[[ $r == T02thread:p* ]] || die "interrupt: stop reply '$r'"
grep -q '^State:.*t (tracing stop)' "/proc/$prog/status" || die "interrupt: the program is not stopped"
note "ok interrupt: $r"
# the interrupt byte in the same write as the resume packet (one read
# for the server): it stops the program all the same
printf '%s\003' "$(rsp_pkt 'vCont;c')" >&5
r=$(rsp_recv 5)
[[ $r == T02thread:p* ]] || die "interrupt with the packet: stop reply '$r'"
note "ok interrupt in the resume packet's write: $r"
# disconnect in the middle of a packet
printf '$m40' >&5
exec 5<&- 5>&-
wait "$spid"
rc=$?
cat "$TMPDIR/err.rest" >&2
[ "$rc" = 0 ] || die "the server exited with $rc after the client went away"
[ ! -e "/proc/$prog" ] || qgrep zombie "/proc/$prog/status" 2>/dev/null ||
	die "the launched program $prog is still there"
grep -q "gdb disconnected; killing process $prog" "$TMPDIR/err.rest" || die "no message about the disconnect"
note "ok tcp: one client, malformed packets, interrupt, disconnect mid-packet"

# 1b. gdb itself over TCP: target remote :PORT.
if command -v gdb >/dev/null; then
	mkfifo "$TMPDIR/errg"
	"$SERVER" --listen :0 -- "$TESTPROGS/fib" 2>"$TMPDIR/errg" &
	spid=$!
	on_exit "kill -9 $spid 2>/dev/null"
	exec 7<"$TMPDIR/errg"
	port=
	while IFS= read -r -t 120 -u 7 line; do
		[[ $line == "Listening on port "* ]] && { port=${line##* }; break; }
	done
	[ -n "$port" ] || die "the server did not say which port it listens on"
	cat <&7 >"$TMPDIR/errg.rest" &
	gdb -nx -batch -ex "target remote 127.0.0.1:$port" -ex 'break fib' -ex continue \
		-ex 'info registers rip' -ex kill >"$TMPDIR/gdb-tcp.out" 2>&1
	wait "$spid" || die "the server failed after gdb over TCP"
	cat "$TMPDIR/gdb-tcp.out" >&2
	grep -q '^Breakpoint 1, fib (n=10) at ' "$TMPDIR/gdb-tcp.out" || die "gdb over TCP: no breakpoint stop"
	grep -Eq '^\[Inferior 1 \(process [0-9]+\) killed\]$' "$TMPDIR/gdb-tcp.out" || die "gdb over TCP: no kill"
	note "ok gdb over TCP"
else
	die "gdb not installed"
fi

# 2. Unix socket, attached: a client that leaves while the program runs.
/bin/sleep 600 &
victim=$!
on_exit "kill -9 $victim 2>/dev/null"
sock=$TMPDIR/stub.sock
mkfifo "$TMPDIR/err2"
"$SERVER" --unix "$sock" --attach "$victim" 2>"$TMPDIR/err2" &
spid=$!
on_exit "kill -9 $spid 2>/dev/null"
exec 8<"$TMPDIR/err2"
while IFS= read -r -t 120 -u 8 line; do
	note "server: $line"
	[[ $line == "Listening on "* ]] && break
done
cat <&8 >"$TMPDIR/err2.rest" &
python3 - "$sock" "$(rsp_pkt 'qAttached')" "$(rsp_pkt 'vCont;c')" <<'PY' || die "unix client failed"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode())
buf = b""
while b"#" not in buf or len(buf) < buf.index(b"#") + 3:
    d = s.recv(100)
    if not d:
        sys.exit("connection closed")
    buf += d
if b"$1#" not in buf:
    sys.exit("qAttached reply %r" % buf)
s.sendall(sys.argv[3].encode())
ack = s.recv(1)
if ack != b"+":
    sys.exit("no ack for vCont;c: %r" % ack)
s.close()
PY
wait "$spid"
rc=$?
cat "$TMPDIR/err2.rest" >&2
[ "$rc" = 0 ] || die "the server exited with $rc after the client left"
[ -e "/proc/$victim" ] || die "the attached program is gone"
grep -q '^TracerPid:[[:space:]]*0$' "/proc/$victim/status" || die "the attached program is still traced"
! grep -Eq '^State:[[:space:]]*[tT] ' "/proc/$victim/status" || die "the attached program is left stopped: $(grep State: /proc/$victim/status)"
[ ! -e "$sock" ] || die "the socket file was left behind"
kill "$victim"
note "ok unix socket, attach: the program runs on after the client left"

# 3. Another address only when given, with a warning; SIGTERM while
# waiting for gdb ends the server and the program it launched.
mkfifo "$TMPDIR/err3"
"$SERVER" --listen 0.0.0.0:0 -- /bin/sleep 600 2>"$TMPDIR/err3" &
spid=$!
on_exit "kill -9 $spid 2>/dev/null"
exec 9<"$TMPDIR/err3"
warned=0 prog= listening=0
while IFS= read -r -t 120 -u 9 line; do
	note "server: $line"
	[[ $line == *"warning: listening on 0.0.0.0"* ]] && warned=1
	[[ $line == "ptdbg-server: started process "* ]] && prog=${line##* }
	[[ $line == "Listening on port "* ]] && listening=1
	[ "$listening" = 1 ] && [ -n "$prog" ] && break
done
[ "$warned" = 1 ] || die "no warning for listening on 0.0.0.0"
[ -n "$prog" ] || die "the server did not say which process it started"
kill -TERM "$spid"
wait "$spid"
rc=$?
[ "$rc" = $((128 + 15)) ] || die "the server ended with $rc on SIGTERM"
[ ! -e "/proc/$prog" ] || qgrep zombie "/proc/$prog/status" 2>/dev/null ||
	die "the launched program $prog outlived the server"
note "ok 0.0.0.0 warned, SIGTERM while waiting"

# 4. Bad command lines.
bad() { # EXPECTED-STATUS MESSAGE-REGEX ARGS...
	local want=$1 msg=$2 out rc
	shift 2
	out=$("$SERVER" "$@" 2>&1 </dev/null)
	rc=$?
	[ "$rc" = "$want" ] && grep -Eq -- "$msg" <<<"$out" ||
		die "ptdbg-server $*: exit $rc, output: $out"
}
bad 2 'exactly one of --stdio' -- "$TESTPROGS/fib"
bad 2 'exactly one of --stdio' --stdio --listen :0 -- "$TESTPROGS/fib"
bad 2 'either --attach PID or' --stdio
bad 2 'either --attach PID or' --stdio --attach 1 -- "$TESTPROGS/fib"
bad 2 "bad process id 'x'" --stdio --attach x
bad 2 'valid' --stdio --method nosuch -- "$TESTPROGS/fib"
bad 1 "bad --listen address" --listen nowhere -- "$TESTPROGS/fib"
bad 1 "cannot run" --stdio -- "$TMPDIR/no-such-program"
bad 1 "cannot attach" --stdio --attach 999999999
bad 0 'Usage: ptdbg-server' --help
note "ok bad command lines"

# 5. With --stdio the program's output must not reach the packet stream:
# a program that prints what looks like packets (a stop reply on its
# standard output, an exit reply on its standard error, an interrupt
# byte) and exits 7.  gdb must see the real exit; the bytes appear on
# the server's standard error, which is gdb's.
fake="$TMPDIR/fake-packets.sh"
printf '%s\n' '#!/bin/sh' "printf '\$T05thread:1;#00+-\\003\\n'" "printf '\$W00#b7\\n' >&2" 'exit 7' >"$fake"
chmod +x "$fake"
gdb -nx -batch -ex 'set pagination off' -ex "target remote | $SERVER --stdio -- $fake" -ex continue \
	>"$TMPDIR/fake.out" 2>"$TMPDIR/fake.err"
grep -q '^\[Inferior 1 (process [0-9]*) exited with code 07\]$' "$TMPDIR/fake.out" ||
	{ cat "$TMPDIR/fake.out" "$TMPDIR/fake.err" >&2; die "--stdio: the program's output disturbed the protocol"; }
grep -q '^\$T05thread:1;#00+-' "$TMPDIR/fake.err" && grep -q '^\$W00#b7$' "$TMPDIR/fake.err" ||
	{ cat "$TMPDIR/fake.err" >&2; die "--stdio: the program's output did not reach standard error"; }
note "ok --stdio: the program's packet-like output goes to standard error, gdb sees exit code 7"

# 6. --forward-output: the program's standard output reaches gdb in O
# packets (gdb prints them on its stderr), none of it on the server's
# standard error; after a detach the program writes on, through a relay
# the server leaves behind (no SIGPIPE for it).
gdb -nx -batch -ex 'set pagination off' \
	-ex "target remote | $SERVER --forward-output --stdio -- $TESTPROGS/fib 6 2>$TMPDIR/fwd.server" \
	-ex 'break fib' -ex continue -ex delete -ex continue >"$TMPDIR/fwd.out" 2>&1
grep -qx 'fib(6) = 8' "$TMPDIR/fwd.out" || { cat "$TMPDIR/fwd.out" >&2; die "--forward-output: the output did not reach gdb"; }
grep -q 'fib(6)' "$TMPDIR/fwd.server" && die "--forward-output: the output went to the server's stderr too"
grep -q '^\[Inferior 1 (process [0-9]*) exited normally\]$' "$TMPDIR/fwd.out" || die "--forward-output: no exit"
mkfifo "$TMPDIR/fwd.go" "$TMPDIR/fwd.err"
exec 7<>"$TMPDIR/fwd.go" 8<>"$TMPDIR/fwd.err"
printf '%s\n' '#!/bin/sh' "read x <'$TMPDIR/fwd.go'" 'echo "after detach $x"' >"$TMPDIR/fwd-prog.sh"
chmod +x "$TMPDIR/fwd-prog.sh"
gdb -nx -batch -ex 'set pagination off' \
	-ex "target remote | $SERVER --forward-output --stdio -- $TMPDIR/fwd-prog.sh 2>$TMPDIR/fwd.err" \
	-ex detach >"$TMPDIR/fwd2.out" 2>&1
grep -q '^\[Inferior 1 (process [0-9]*) detached\]$' "$TMPDIR/fwd2.out" || { cat "$TMPDIR/fwd2.out" >&2; die "--forward-output: no detach"; }
echo go >&7
line=
while read -r -t 60 -u 8 line; do [ "$line" = "after detach go" ] && break; done
[ "$line" = "after detach go" ] || die "--forward-output: a detached program's output was lost (last line '$line')"
exec 7<&- 8<&-
note "ok --forward-output: O packets while it runs, relayed after a detach"
