#!/usr/bin/env bash
# ptdbg-server's host I/O (the vFile packets) with real gdb 13: gdb reads
# the program and its libraries through the stub ("Reading ... from remote
# target"), reads /proc/PID/task/TID/maps (no "unable to open /proc file"
# warning, `info proc mappings` lists the program), and `remote get`,
# `remote put` and `remote delete` copy, write and remove files, as with
# gdbserver.  The svr4 library list carries gdb 13's lmid (no "Required
# attribute lmid" warning).  Bad requests get gdb's File-I/O errors: a
# missing file, a bad descriptor, a name that is not hex.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

src=$TMPDIR/src.txt back=$TMPDIR/back.txt put=$TMPDIR/put.txt
printf 'host i/o through ptdbg-server\nline 2\n' >"$src"
out=$TMPDIR/gdb.out
gdb -nx -batch -ex 'set confirm off' \
	-ex "target remote | $SERVER --stdio -- $TESTPROGS/fib" \
	-ex 'info proc mappings' -ex 'break fib' -ex continue -ex 'info sharedlibrary' \
	-ex "remote get $src $back" -ex "remote put $src $put" -ex "remote delete $put" \
	-ex "remote get $TMPDIR/nosuch $TMPDIR/x" -ex 'echo END\n' -ex kill >"$out" 2>&1
cat "$out" >&2
for bad in 'does not support file transfer' 'unable to open /proc file' 'Required attribute' \
	'lmid'; do
	! qgrep "$bad" "$out" || die "gdb still says: $bad"
done
qgrep "^Reading symbols from target:$TESTPROGS/fib" "$out" || die "gdb did not read the program through the stub"
qgrep "^ *0x[0-9a-f]* *0x[0-9a-f]* *0x[0-9a-f]* *0x[0-9a-f]* *r-xp *$TESTPROGS/fib$" "$out" ||
	die "info proc mappings does not list the program's code"
qgrep '^Breakpoint 1, fib (n=10) at .*fib\.c:12$' "$out" || die "no breakpoint stop"
qgrep 'target:.*/libc\.so\.6$' "$out" || die "libc not read through the stub"
cmp "$src" "$back" || die "remote get copied something else"
[ ! -e "$put" ] || die "remote delete left $put"
qgrep 'No such file or directory' "$out" || die "remote get of a missing file: no ENOENT"
qgrep '^END$' "$out" || die "gdb did not get to the end"

# raw packets: errors in gdb's File-I/O numbers
hex() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
{
	for p in "vFile:open:$(hex "$TMPDIR/nosuch"),0,0" 'vFile:pread:3e7,10,0' 'vFile:close:3e7' \
		'vFile:open:zz,0,0' "vFile:open:$(hex "$src"),0,0" 'vFile:setfs:7fffffff'; do
		rsp_pkt "$p"
	done
	rsp_pkt k
} | timeout 60 "$SERVER" --stdio -- "$TESTPROGS/fib" >"$TMPDIR/raw" 2>"$TMPDIR/raw.err"
tr '$' '\n' <"$TMPDIR/raw" | sed 's/#..+*$//; s/^+*//' >"$TMPDIR/replies"
cat "$TMPDIR/replies" >&2
qgrep '^F-1,2' "$TMPDIR/replies" || die "open of a missing file: not F-1,2 (ENOENT)"
[ "$(grep -c '^F-1,9' "$TMPDIR/replies")" = 2 ] || die "pread/close of a bad descriptor: not F-1,9 (EBADF) twice"
qgrep '^F-1,16' "$TMPDIR/replies" || die "a name that is not hex: not F-1,16 (EINVAL)"
qgrep '^F[0-9a-f][0-9a-f]*$' "$TMPDIR/replies" || die "open of a readable file: no descriptor"
qgrep '^F-1,2$' "$TMPDIR/replies" || die "setfs of a missing process: not F-1,2"
exit 0
