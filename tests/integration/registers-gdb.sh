#!/usr/bin/env bash
# info registers and info all-registers as gdb 13 shows them on this
# x86-64 CPU with AVX-512: the general registers (info registers adds
# k0-k7 and leaves fs_base/gs_base to be asked by name), then st0-7, the
# x87 control registers, mxcsr with its flags, k0-7 and zmm0-31 as gdb's
# vector unions in hex ("0x0 <repeats 24 times>").  testprogs/avx512 loads
# known values (1 and 0 on the x87 stack, a byte pattern in zmm1 and
# zmm31, a broadcast in zmm17, k1 and k7) and stops at regs_loaded.
# Compared with gdb: every register name in gdb's order, every value of
# the x87/SSE registers, and the layout of every vector line.  gdb 13
# reads the AVX-512 parts at Intel's fixed XSAVE offsets, which AMD Zen 4
# does not use (gdb 14 asks CPUID, as ptdbg does), so those values are
# checked against what the program put there.
. "$(dirname "$0")/lib.bash"
need_prereqs avx512
need_gdb
grep -qw avx512f /proc/cpuinfo || die "this test needs a CPU with AVX-512F"

addr=$(gdb -nx -batch -ex 'info address regs_loaded' "$TESTPROGS/avx512" |
	sed -n 's/.* is at \(0x[0-9a-f]*\) .*/\1/p')
[ -n "$addr" ] || die "no address for regs_loaded"
CMDS=("break *$addr" run 'info registers' 'info all-registers'
	'info registers k1 k7 zmm17 st0 st1 ftag fstat mxcsr rip' 'info registers fs_base'
	'info registers k8' 'info registers xmm1 ymm1 xmm17')
ptdbg_batch -- "$TESTPROGS/avx512" | grep -v -e libthread_db -e '^\[Thread debugging' >"$TMPDIR/p"
gdb_batch -- "$TESTPROGS/avx512" | grep -v -e libthread_db -e '^\[Thread debugging' >"$TMPDIR/g"

# the names, in order
awk '{print $1}' "$TMPDIR/g" >"$TMPDIR/g.names"
awk '{print $1}' "$TMPDIR/p" >"$TMPDIR/p.names"
diff -u "$TMPDIR/g.names" "$TMPDIR/p.names" >&2 || die "register names or order differ (- gdb, + ptdbg)"
[ "$(grep -c '^zmm' "$TMPDIR/p")" -eq 33 ] || die "not 32 zmm registers (+ one by name)"
[ "$(grep -c '^k[0-7] ' "$TMPDIR/p")" -eq 18 ] || die "k0-7 not listed twice (+ two by name)"
# the x87 and SSE values
grep -E '^(st[0-7]|fctrl|fstat|ftag|fiseg|fioff|foseg|fooff|fop|mxcsr) ' "$TMPDIR/g" >"$TMPDIR/g.fp"
grep -E '^(st[0-7]|fctrl|fstat|ftag|fiseg|fioff|foseg|fooff|fop|mxcsr) ' "$TMPDIR/p" >"$TMPDIR/p.fp"
diff -u "$TMPDIR/g.fp" "$TMPDIR/p.fp" >&2 || die "x87/SSE register values differ (- gdb, + ptdbg)"
qgrep -e '^st1            1                   (raw 0x3fff8000000000000000)$' "$TMPDIR/p" ||
	die "st1 is not the 1 the program loaded"
# the layout of the vector lines: every number a placeholder
sed -n 's/0x[0-9a-f]*/N/g; s/<repeats [0-9]* times>/<repeats R>/g; /^zmm/p' "$TMPDIR/g" |
	sed 's/N\(, N\)*/N.../g; s/N\.\.\. <repeats R>\(, N\.\.\.\( <repeats R>\)\{0,1\}\)*/N.../g' |
	awk '{$1=""; print}' | sort -u >"$TMPDIR/g.zmm"
sed -n 's/0x[0-9a-f]*/N/g; s/<repeats [0-9]* times>/<repeats R>/g; /^zmm/p' "$TMPDIR/p" |
	sed 's/N\(, N\)*/N.../g; s/N\.\.\. <repeats R>\(, N\.\.\.\( <repeats R>\)\{0,1\}\)*/N.../g' |
	awk '{$1=""; print}' | sort -u >"$TMPDIR/p.zmm"
diff -u "$TMPDIR/g.zmm" "$TMPDIR/p.zmm" >&2 || die "vector register lines are laid out otherwise"
# the AVX-512 values the program set
qgrep -e '^k1             0x5a5a              23130$' "$TMPDIR/p" || die "k1 is not 0x5a5a"
qgrep -e '^k7             0xffffffffffffffff  18446744073709551615$' "$TMPDIR/p" || die "k7 is not -1"
qgrep -e '^zmm17 .*v16_int32 = {0x1020304 <repeats 16 times>}' "$TMPDIR/p" ||
	die "zmm17 is not the broadcast 0x01020304"
pat='v64_int8 = {0x1, 0x8, 0xf, 0x16, 0x1d, 0x24, 0x2b, 0x32, 0x39, 0x40'
for z in zmm1 zmm31; do
	qgrep -e "^$z .*$pat" "$TMPDIR/p" || die "$z does not start with the program's pattern"
done
# (bytes 48..63 of the pattern, i * 7 + 1, little-endian)
qgrep -e '^zmm1 .*v4_int128 = {[^}]*, 0xbab3aca59e979089827b746d665f5851}}$' "$TMPDIR/p" ||
	die "zmm1's upper 128 bits are not the pattern's last bytes"
qgrep -e "^Invalid register \`k8'" "$TMPDIR/p" || die "k8 accepted"
# gdb's xmm and ymm pseudo registers by name: xmm1 and ymm1 (FXSAVE and
# the AVX area, at the same offsets for gdb 13) equal, xmm17 laid out as
# gdb's
grep -E '^(xmm1|ymm1) ' "$TMPDIR/g" >"$TMPDIR/g.xy"
grep -E '^(xmm1|ymm1) ' "$TMPDIR/p" >"$TMPDIR/p.xy"
[ "$(wc -l <"$TMPDIR/p.xy")" = 2 ] || die "no xmm1 and ymm1 lines"
diff -u "$TMPDIR/g.xy" "$TMPDIR/p.xy" >&2 || die "xmm1/ymm1 differ (- gdb, + ptdbg)"
grep '^xmm17 ' "$TMPDIR/g" | sed 's/0x[0-9a-f]*/N/g; s/<repeats [0-9]* times>/R/g' >"$TMPDIR/g.x17"
grep '^xmm17 ' "$TMPDIR/p" | sed 's/0x[0-9a-f]*/N/g; s/<repeats [0-9]* times>/R/g' >"$TMPDIR/p.x17"
diff -u "$TMPDIR/g.x17" "$TMPDIR/p.x17" >&2 || die "xmm17 is laid out otherwise"
note "$(wc -l <"$TMPDIR/p") lines: names and order as gdb's, x87/SSE values equal, AVX-512 values the program's"
