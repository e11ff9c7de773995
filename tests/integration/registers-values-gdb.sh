#!/usr/bin/env bash
# The registers beyond the general ones as values of expressions, as gdb
# 13 gives them on this x86-64 CPU: print $xmm0 (gdb's union vec128 with
# its bfloat16, half, float, double and integer vectors and uint128),
# $ymm4 and $zmm0 (builtin_type_vec256i/vec512i), members and elements
# ($xmm0.v4_float[1], p/x $xmm3.uint128, the int128 of v2_int128), $st0
# as gdb prints an i387_ext, $mxcsr and $eflags as flags, the x87
# control registers, $k1; ptype and whatis of each; assignments to a
# register or a part of it, live; and gdb's errors.  testprogs/vecregs
# puts known values in xmm0-3, ymm4 and on the x87 stack and stops at
# vecregs_loaded.  Then in a recording, where the recorder keeps no
# vector registers: <unavailable>, as gdb's record btrace has them.
. "$(dirname "$0")/lib.bash"
need_prereqs vecregs fib
need_gdb
grep -qw avx /proc/cpuinfo || die "this test needs a CPU with AVX"
norm() { grep -v -e libthread_db -e '^\[Thread debugging' | normalize; }

addr=$(gdb -nx -batch -ex 'info address vecregs_loaded' "$TESTPROGS/vecregs" |
	sed -n 's/.* is at \(0x[0-9a-f]*\) .*/\1/p')
[ -n "$addr" ] || die "no address for vecregs_loaded"

# 1. values, types, formats and errors
CMDS=("break *$addr" run 'p $xmm0' 'p $xmm1' 'p $xmm2' 'p $xmm3' 'p $ymm4' 'p $st0' 'p $st1'
	'p $st2' 'p $xmm0.v4_float[1]' 'p/x $xmm3.uint128' 'p $xmm3.uint128' 'p $xmm0.v16_int8'
	'ptype $xmm0' 'whatis $xmm0' 'whatis $ymm0' 'ptype $ymm0' 'ptype $st0' 'whatis $st0'
	'p $mxcsr' 'ptype $mxcsr' 'whatis $mxcsr' 'p/x $mxcsr' 'p $mxcsr & 0x80' 'p $fctrl'
	'p $fstat' 'p $ftag' 'p $fiseg' 'p $fioff' 'p $fop' 'whatis $fctrl' 'ptype $ftag' 'p $eflags'
	'ptype $eflags' 'whatis $eflags' 'p/x $eflags' 'p $fs_base' 'whatis $fs_base' 'whatis $k1'
	'ptype $k1' 'p $zmm0' 'whatis $zmm0' 'ptype $zmm0' 'p $xmm0.v8_half' 'p $xmm0.v8_bfloat16'
	'p $xmm1.v8_bfloat16' 'p $xmm1.v8_half' 'p $xmm0.v2_double' 'p/x $xmm0' 'p $ymm0.v8_float'
	'p $ymm4.v2_int128' 'p/x $ymm4.v2_int128' 'p/x $ymm4.v8_int32' 'p $ymm4.v4_int64[1]'
	'p $xmm2.v16_int8[3]' 'p sizeof($xmm0)' 'p sizeof($ymm0)' 'p sizeof($st0)'
	'p $xmm1.v2_double[0] * 2' 'output $xmm0' 'whatis $xmm0.v8_bfloat16[0]'
	'whatis $xmm0.v8_half[0]' 'whatis $xmm0.v2_double[0]' 'whatis $xmm0.v16_int8[0]'
	'whatis $xmm0.v4_float' 'ptype $xmm0.v4_float' 'ptype $xmm0.v2_int64'
	'ptype $xmm0.v8_bfloat16' 'ptype $xmm0.uint128' 'whatis $ymm0.v8_float'
	'whatis $ymm0.v8_float[0]' 'whatis $ymm0.v16_half[0]' 'whatis $ymm0.v2_int128[0]'
	'p/d $xmm3.uint128' 'p/x $st0' 'p/x $st1' 'p/f $xmm0.v4_int32' 'p/x $xmm0.v4_float'
	'p $st0 + 1' 'whatis $st0 + 1' 'p $xmm0.foo' 'p $xmm0.v4_float[4]' 'p $xmm0.v4_float[-1]'
	'p $mxcsr.PE' 'p/c $xmm0.v8_half' 'p/c $st0' 'p $xmm40' 'p $st8' 'p $xmm01' 'p $k8' 'info registers xmm0'
	'info registers st0 st1 fctrl ftag mxcsr ymm4' 'p/z $st1' 'p/z $xmm3.uint128' 'p/z $st0')
compare_gdb values "$TESTPROGS/vecregs"
qgrep -e '^\$6 = 3.14159265358979323851$' "$TMPDIR/values.ptdbg" || die "\$st0 is not the program's pi"
qgrep -e 'v8_int32 = {1, 2, 3, 4, 5, 6, -7, 2147483647}' "$TMPDIR/values.ptdbg" ||
	die "\$ymm4 does not have the program's ints"

# 2. assignments, live: a register, a member, an element, across the
#    AVX and AVX-512 parts (the k and zmm16-31 registers hold what the C
#    library left there, which differs with the environment: they are
#    set before they are printed)
CMDS=("break *$addr" run 'p $xmm0.v4_int32[0] = 5' 'p $xmm0' 'set var $xmm0.v4_int32[1] = 7'
	'p $xmm0.v4_int32' 'p $xmm0 = $xmm1' 'p $xmm0' 'p $st0 = 2.5' 'p $st0' 'p $k1 = 7' 'p $k1'
	'p $ymm4.v8_int32[7] = 9' 'p $ymm4.v8_int32' 'p $zmm4.v16_int32' 'p $xmm3.uint128 = 1'
	'p $xmm3' 'p $mxcsr = 0x1f81' 'p $mxcsr' 'p $fctrl = 0x37e' 'p $fctrl'
	'p $xmm0.v4_float[0] = 2' 'p $xmm0.v4_float' 'p $xmm0.v2_int64[1] = -1' 'p/x $xmm0.uint128'
	'p $xmm5.v4_float[1] = 1.5' 'p $xmm5' 'p $ymm20.v8_int32[7] = -3' 'p $ymm20.v8_int32[7]'
	'info registers xmm0 mxcsr k1' stepi 'p $xmm0' 'p $st0' 'p $fctrl')
compare_gdb assign "$TESTPROGS/vecregs"
qgrep -e '^\$[0-9]* = {5, 7, 1077936128, 1036831949}$' "$TMPDIR/assign.ptdbg" ||
	die "assign: \$xmm0.v4_int32 was not written"

# 2a. operators and formats on them: gdb's errors for unions and int128,
#     /o /t /d /u /c of 16- and 10-byte values, assignments converted to
#     half and bfloat16, whole vectors, the x87 tag word
CMDS=("break *$addr" run 'p $st0 = $xmm0' 'p $xmm0 = 1' 'p $xmm0 = $ymm0' 'p $xmm0 + 1'
	'p -$xmm0' 'p *$xmm0' 'p &$xmm0' 'p &$xmm0.v4_float[1]' 'x/4x $xmm0' 'p $xmm0 == $xmm1'
	'p $xmm0 != $xmm0' 'p/c $xmm0.v16_int8' 'p/o $xmm3.uint128' 'p/t $xmm3.uint128'
	'p/c $xmm3.uint128' 'p/d $st0' 'p/u $st0' 'p/x -$st1' 'p/d -$st1' 'p/o $st1'
	'p $xmm0.v4_float[1.5]' 'whatis $xmm0.v4_float[1] + $st0' 'p $ymm4.v8_int32[2]@3'
	'p $xmm0.v4_int32 = $xmm1.v4_int32' 'p $xmm0.v4_int32' 'p $fop = 1' 'p $fop' 'p $ftag = 0'
	'p $ftag' 'p $fstat = 0' 'p (int)$st0' 'p (char)$xmm2.v16_int8[5]' 'p $xmm3.uint128 + 1'
	'p $xmm3.uint128 > 0' 'p -$xmm3.uint128' 'p $xmm0.v2_int64[0] + $xmm0.v2_int64[1]'
	'p sizeof($xmm0.v4_float)' 'ptype $xmm0.v4_float[0]' 'p $xmm2.v16_int8[15] = 300'
	'p $xmm2.v16_int8' 'p $xmm1.v2_double[1] = 2.5' 'p $xmm1.v2_double' 'p $xmm0.v8_half[1] = 1'
	'p $xmm0.v8_half[2] = 65519' 'p $xmm0.v8_half[3] = 1e-7' 'p $xmm0.v8_bfloat16[4] = 3.14159'
	'p $xmm0.v8_bfloat16[5] = -1e39' 'p $xmm0.v8_half[6] = -6e-5' 'p $xmm0.v8_bfloat16[6] = 6e-39' 'p $xmm0.v8_half' 'p $xmm0.v8_bfloat16' 'p $mxcsr | 1'
	'p $eflags == 0x246' 'p $xmm0.uint128 == 0' 'p $st1 * 2' 'p $st1 == 0.25' 'p $st1 < 1'
	'whatis $fctrl + $st1' 'p $xmm0.v4_float[0] + 1' 'whatis $xmm0.v8_half[0] + 1'
	'p $xmm0.v8_half[1] + 1' 'p $xmm0.v8_bfloat16[1] * 2' 'whatis $xmm0.v8_bfloat16[1] * 2')
compare_gdb ops "$TESTPROGS/vecregs"

# 2a'. NaNs and infinities: x87's NaN with its 64-bit mantissa, and gdb
#     13's conversions to half (which loses the sign) and bfloat16
CMDS=("break *$addr" run 'p $st0 = 0.0/0' 'p $st0' 'info registers st0' 'p $st0 = 1.0/0'
	'p $xmm0.v4_float[0] = 0.0/0' 'p $xmm0.v8_half[0] = 0.0/0' 'p $xmm0.v8_bfloat16[0] = 0.0/0'
	'p $xmm0.v8_bfloat16[0] = -(0.0/0)' 'p $xmm0.v8_half[0] = -(0.0/0)' 'p $xmm0.v8_half[0] = -1.0/0'
	'p $xmm0.v8_bfloat16[0] = -1.0/0' 'p $xmm0.v8_half[0] = -0.0' 'p $xmm0.v8_half[0] = 1e-30'
	'p $xmm0.v8_half[0] = -1e30' 'p $xmm0.v8_half[0] = -2.5' 'p $xmm0.v8_half[0] = -65504'
	'p $xmm0.v8_half[0] = -65520' 'p $xmm0.v8_bfloat16[0] = -3e38' 'p $xmm0.v8_bfloat16[0] = -3.4e38'
	'p $xmm0.v8_bfloat16[0] = -1.1e-38' 'p $xmm0.v8_bfloat16[0] = -6e-39'
	'p $xmm0.v8_bfloat16[0] = -1e-45' 'p $xmm0.v8_bfloat16[0] = -0.0' 'p/x $xmm0.v8_bfloat16[0]'
	'p $xmm0.v8_bfloat16[0] = -2.5' 'p $xmm0.v8_half[0] = -6e-5' 'p/x $xmm0.v8_half'
	'p $st0 = 1.18973149535723176502e+4932L' 'p $st0 = 1e-4940L' 'p $st1 = 1.1L'
	'p $st1 = 18446744073709551615' 'p $st0 = $st1' 'p (long double)18446744073709551615')
compare_gdb nan "$TESTPROGS/vecregs"

# 2b. from an outer frame a vector register is the innermost frame's,
#     written there too; $eflags takes an assignment (the kernel keeps
#     IF set whatever is written)
CMDS=('break fib' run up 'p $xmm1.v4_int32[0] = 4' 'p $xmm1.v4_int32[0]' 'p $st0' down
	'p $xmm1.v4_int32[0]' 'p $eflags = 0x202' 'p $eflags' 'info registers eflags'
	'p $eflags = 3' 'p $eflags' 'p $eflags + 1' 'p/x $eflags')
compare_gdb frames "$TESTPROGS/fib"

# 2b'. the registers every frame shares (eflags, segments, fs_base,
#     gs_base, orig_rax) from an outer frame, and parts of the general
#     registers written ($eax, $ah, $r9w: the other bits kept)
CMDS=('break fib' run 'p $fs_base = $fs_base' 'p $gs_base = 0x1000' 'p $gs_base' 'p $ds = 0'
	'p $es' 'p $orig_rax' 'p $orig_rax = -1' 'p $gs = 0' up 'p $gs_base = 0' 'p $eflags = 0x202'
	'p $gs_base' 'info registers gs_base' 'p $eflags' 'p $cs' down 'p $r15 = 7' 'p $r15'
	'p $r15 = 0' 'p $rax = 0x1122334455667788' 'p $ax = 1' 'p/x $rax' 'p $eax = -1' 'p/x $rax'
	'p $ah = 0x33' 'p/x $rax' 'p $al = 0x44' 'p/x $rax' 'p $r8d = 5' 'p/x $r8' 'p $r9w = 0x7777'
	'p/x $r9' 'p $r10l = 300' 'p/x $r10' 'p $sil = 1' 'p/x $rsi' 'p $eax++' 'p $eax' 'p &$ax'
	'p $ax = $ax')
compare_gdb shared "$TESTPROGS/fib"

# 2c. before run: the types of the registers of the executable's
#     architecture (no AVX: $ymm0 and $k0 are convenience variables),
#     "No registers." for their values; whatis evaluates for the type only
CMDS=('p $ymm0' 'whatis $ymm0' 'p $xmm16' 'whatis $xmm15' 'whatis $st0' 'whatis $fctrl'
	'whatis $k0' 'whatis $zmm0' 'whatis $rax' 'whatis $eflags' 'p sizeof($xmm0)'
	'ptype $xmm0.v4_float' 'p $xmm0' 'p $k0' 'p $st0' 'whatis $xmm0' 'ptype $mxcsr' 'p $eflags'
	'info registers xmm0' 'p $xmm0.v4_float[0] = 1' 'whatis $pc' 'ptype $sp' 'whatis $ax'
	'whatis $fs_base' 'p $pc' 'output $rip' 'whatis $xmm0.v4_float[0] = 1' 'whatis $rax = 1')
compare_gdb before "$TESTPROGS/vecregs"

# 3. in a recording: the recorder keeps no vector or x87 registers
CMDS=("break *$addr" run record stepi stepi reverse-stepi 'p $xmm0' 'p $xmm0.v4_float[1]'
	'p $ymm4' 'p $st0' 'p $mxcsr' 'p $fctrl' 'whatis $xmm0' 'ptype $st0'
	'p $xmm0.v4_int32[0] = 1' 'info registers xmm0 st0 mxcsr k1')
ptdbg_batch -- "$TESTPROGS/vecregs" | norm >"$TMPDIR/past"
for i in 1 2 3 4 5 6; do
	qgrep -e "^\\\$$i = <unavailable>\$" "$TMPDIR/past" || die "past: \$$i is not <unavailable>"
done
qgrep -e '^type = union vec128$' "$TMPDIR/past" || die "past: whatis \$xmm0"
qgrep -e '^type = builtin_type_i387_ext$' "$TMPDIR/past" || die "past: ptype \$st0"
qgrep -e 'read-only' "$TMPDIR/past" || die "past: an assignment did not fail"
for r in xmm0 st0 mxcsr k1; do
	qgrep -e "^$r  *<unavailable>\$" "$TMPDIR/past" || die "past: info registers $r"
done
note "past: $(wc -l <"$TMPDIR/past") lines, the registers <unavailable>"
