#!/usr/bin/env bash
# info address as gdb 13 says it: globals and statics ("static storage at
# address"), functions ("a function at address"), typedefs, enumerators
# and constants, locals and arguments at -O0 (a DW_OP_fbreg location over
# a DW_OP_call_frame_cfa frame base: "a complex DWARF expression:"),
# optimised code's registers, pieces, implicit pointers and location lists
# ("multi-location:" with its Base address and Range lines), libc's
# symbols with debug information (a thread-local variable, errno) and
# without ("in a file compiled without debugging"), in outer frames, and
# the errors.  ptdbg and gdb run the same commands; outputs must be
# identical but for gdb's thread-debugging lines.
. "$(dirname "$0")/lib.bash"
need_prereqs values values-O2 fib tailcall-O2
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' | normalize
}

# compare NAME PROG REGEX: identical outputs that contain REGEX
compare() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg's info address differs from gdb's (- gdb, + ptdbg)"
	fi
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(grep -c '^Symbol' "$TMPDIR/$name.ptdbg") symbols described as gdb does"
}

syms=(main g_counter s_total point_t GREEN int nosuch make_point g_rec printf puts)
locals=(depth calls local printf argc argv n pt arr p pp buf un col)
CMDS=()
for s in "${syms[@]}"; do CMDS+=("info address $s"); done
CMDS+=('info address' 'info address   g_rec  ' 'break helper' run)
for s in "${locals[@]}"; do CMDS+=("info address $s"); done
CMDS+=(up)
for s in "${locals[@]}"; do CMDS+=("info address $s"); done
compare O0 values 'is a complex DWARF expression:'
qgrep -e '^Symbol "g_counter" is static storage at address 0x' "$TMPDIR/O0.ptdbg" ||
	die "O0: no static storage"
qgrep -e '^Symbol "main" is a function at address 0x' "$TMPDIR/O0.ptdbg" || die "O0: no function"
compare O2 values-O2 'is multi-location:'
qgrep -e 'Base address 0x' "$TMPDIR/O2.ptdbg" || die "O2: no base address line"
qgrep -e 'DW_OP_entry_value' "$TMPDIR/O2.ptdbg" || die "O2: no nested entry value"
qgrep -e 'byte piece\]' "$TMPDIR/O2.ptdbg" || die "O2: no pieces"

# libc: debug information from its separate debug file, a thread-local
# variable, symbols without debug information
CMDS=('break fib' run 'info address errno' 'info address stdout' 'info address format'
	'info address printf' 'info address _start' 'info address __libc_single_threaded'
	'info address n' 'info address fib')
compare libc fib 'in a file compiled without debugging'
CMDS=('break main' run 'info address sum' 'info address i' 'info address input'
	'info address leaf' 'print leaf' 'info address x')
compare tail tailcall-O2 'Symbol "input" is static storage'
