#!/usr/bin/env bash
# docs/example.c, the public API's example, built as a user builds it:
# `make install PREFIX=...` into a scratch prefix, then
# `cc docs/example.c $(pkg-config --cflags --libs ptdbg)` against the
# installed header and libptdbg.so (no -Isrc, no static library).  Then:
#  - launch: fib 5 recorded from main, stopped at the 3rd entry of fib,
#    one instruction stepped back; the call history ends main > fib > fib
#    > fib at the position, and the backtrace at that past position equals
#    the ptdbg shell's `bt` after the same commands;
#  - attach: waiter (it blocks on a fifo) attached, recorded, run to its
#    2nd step(), stepped back, detached: it runs on and sends the right
#    checksum.
. "$(dirname "$0")/lib.bash"

need_prereqs fib waiter
command -v pkg-config >/dev/null || die "pkg-config is needed (make deps)"

prefix=$TMPDIR/prefix
make -C "$TOP" --no-print-directory -s install PREFIX="$prefix" B="$B" \
	SANITIZE="${SANITIZE:-}" >"$TMPDIR/install.log" 2>&1 ||
	{ cat "$TMPDIR/install.log" >&2; die "make install PREFIX=$prefix failed"; }
[ -f "$prefix/include/ptdbg/ptdbg.h" ] || die "make install did not install the header"
[ -f "$prefix/lib/libptdbg.so.0" ] && [ -L "$prefix/lib/libptdbg.so" ] ||
	die "make install did not install libptdbg.so.0 and its libptdbg.so link"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
pkg-config --exists ptdbg || die "pkg-config does not find the installed ptdbg.pc"
want_version=$(sed -n -E 's/^#define PTD_VERSION_(MAJOR|MINOR) ([0-9]+).*/\2/p' \
	"$TOP/include/ptdbg/ptdbg.h" | paste -sd.)
[ "$(pkg-config --modversion ptdbg)" = "$want_version" ] ||
	die "ptdbg.pc says version $(pkg-config --modversion ptdbg), the header $want_version"

san=()
[ -z "${SANITIZE:-}" ] || san=(-fsanitize="$SANITIZE")
# shellcheck disable=SC2046 # pkg-config's words are separate flags
cc -std=gnu11 -Wall -Wextra -Werror "${san[@]}" -o "$TMPDIR/example" "$TOP/docs/example.c" \
	$(pkg-config --cflags --libs ptdbg) -Wl,-rpath,"$prefix/lib" ||
	die "docs/example.c does not build against the installed API"
# (ldd's whole output first: grep -q stopping early would kill ldd with
# SIGPIPE, which pipefail counts as a failure)
deps=$(ldd "$TMPDIR/example") || die "ldd cannot list the example's libraries"
grep -q "libptdbg.so.0 => $prefix/lib/libptdbg.so.0" <<<"$deps" ||
	die "the example is not linked against the installed libptdbg.so: $deps"

# --- launch ---
"$TMPDIR/example" -m soft -b fib -n 3 "$TESTPROGS/fib" 5 >"$TMPDIR/launch.out" 2>&1 ||
	{ cat "$TMPDIR/launch.out" >&2; die "example (launch) failed"; }
cat "$TMPDIR/launch.out" >&2
grep -qx "libptdbg $want_version" "$TMPDIR/launch.out" || die "ptd_version() is not $want_version"
grep -qx 'recording with soft' "$TMPDIR/launch.out" || die "not recording with soft"
grep -Eq '^breakpoint [0-9]+ hit 3 times: 0x[0-9a-f]+ in fib \(fib.c:[0-9]+\)$' "$TMPDIR/launch.out" ||
	die "did not stop at the 3rd entry of fib"
grep -Eq '^stepped back to instruction [0-9]+: 0x[0-9a-f]+ in fib \(fib.c:[0-9]+\) \(replaying\)$' \
	"$TMPDIR/launch.out" || die "did not step back into the recorded past"
# The last four segments: main, then fib three levels deep, the last one
# holding the position.
sed -n '/^function-call history/,/^backtrace:/p' "$TMPDIR/launch.out" | grep -v -e '^function' -e '^backtrace' |
	tail -n 4 | sed -E 's/^(=>|  ) *[0-9]+\t/\1|/; s/\t.*//' >"$TMPDIR/calls"
printf '%s\n' '  |main' '  |  fib' '  |    fib' '=>|      fib' >"$TMPDIR/calls.want"
diff -u "$TMPDIR/calls.want" "$TMPDIR/calls" >&2 || die "the function-call history does not end main > fib > fib > fib"
[ "$(grep -c '^=>' "$TMPDIR/launch.out")" = 1 ] || die "not exactly one segment marked as the position"
grep -qx killed "$TMPDIR/launch.out" || die "the launched program was not killed"

# The backtrace in the past equals the shell's (which ends at main, as
# gdb's "backtrace past-main off"; the example prints main's callers too).
sed -n -E 's/^  #([0-9]+)  (0x[0-9a-f]+) in ([^ ]+).*/#\1 \2 \3/p' "$TMPDIR/launch.out" |
	sed '/ main$/q' >"$TMPDIR/bt"
[ "$(wc -l <"$TMPDIR/bt")" -ge 4 ] || die "the backtrace has fewer than 4 frames"
(cd "$TMPDIR" && "$PTDBG" -batch -ex start -ex 'record soft' -ex 'break fib' -ex continue \
	-ex continue -ex continue -ex reverse-stepi -ex bt --args "$TESTPROGS/fib" 5) >"$TMPDIR/shell.out" 2>&1 ||
	{ cat "$TMPDIR/shell.out" >&2; die "the ptdbg shell failed"; }
sed -n -E 's/^#([0-9]+) +(0x[0-9a-f]+) in ([^ ]+).*/#\1 \2 \3/p' "$TMPDIR/shell.out" >"$TMPDIR/bt.shell"
diff -u "$TMPDIR/bt.shell" "$TMPDIR/bt" >&2 || die "the example's backtrace differs from the shell's bt"
grep -q ' main$' "$TMPDIR/bt" || die "the backtrace does not reach main"

# --- attach ---
d=$TMPDIR/attach
mkdir -p "$d"
mkfifo "$d/ctl" "$d/go" "$d/out"
# Holding both ends of the fifos: opening never blocks and a read never
# sees end-of-file early (the read timeouts only turn a hang into a failure).
exec 3<>"$d/ctl" 4<>"$d/go" 5<>"$d/out"
"$TESTPROGS/waiter" "$d" >"$d/waiter.out" 2>&1 &
wpid=$!
on_exit "kill -9 $wpid 2>/dev/null"
read -r -t 30 -u 3 p || die "waiter did not start"
[ "$p" = "$wpid" ] || die "waiter sent pid $p, expected $wpid"
"$TMPDIR/example" -m soft -b step -n 2 -p "$wpid" >&5 2>&1 &
epid=$!
on_exit "kill -9 $epid 2>/dev/null"
: >"$d/example.out"
while IFS= read -r -t 60 -u 5 line; do
	printf '%s\n' "$line" >>"$d/example.out"
	# its breakpoint is in: let the program call step() again
	[[ $line != "breakpoint "*" at step" ]] || echo go >&4
	[ "$line" != detached ] || break
	case $line in example:*) break ;; esac
done
wait "$epid"
rc=$?
cat "$d/example.out" >&2
[ "$rc" = 0 ] || die "example (attach) exited with $rc"
grep -qx detached "$d/example.out" || die "example did not detach"
grep -Eq '^breakpoint [0-9]+ hit 2 times: 0x[0-9a-f]+ in step \(waiter.c:[0-9]+\)$' "$d/example.out" ||
	die "did not stop at the 2nd call of step()"
grep -E '^=>' "$d/example.out" | qgrep -E $'\t *step\t' || die "the position's segment is not step()"
sed -n -E 's/^  #([0-9]+)  0x[0-9a-f]+ in ([^ ]+).*/\2/p' "$d/example.out" | head -n 2 | paste -sd' ' |
	grep -qx 'step main' || die "the backtrace in the past is not step, main"
want=0
for ((i = 0; i < 10; i++)); do want=$(((want * 31 + i) & 0xffffffff)); done
read -r -t 30 -u 3 line || die "waiter did not run on after the detach"
[ "$line" = "sum $want" ] || die "waiter sent '$line', expected 'sum $want'"
wait "$wpid" || die "waiter exited with $?"
exec 3<&- 4<&- 5<&-
echo "example: launch and attach ok"
