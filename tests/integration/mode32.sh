# 32-bit code in a loaded trace (MODE.Exec 32-bit, as a 32-bit program
# traced on real hardware gives): decoded and listed in 32-bit mode, as
# gdb lists an i386 program: 8-digit addresses, %ebp, and 48 as
# "dec %eax" (in 64-bit code it would be a REX prefix of the mov).
set -eu
d="$TMPDIR/m32"
mkdir -p "$d"
# 8049000: push %ebp; mov %esp,%ebp; dec %eax; mov %eax,%ebx; nop
printf '\125\211\345\110\211\303\220' >"$d/code.bin"
{
	# PSB, MODE.Exec 32-bit, PSBEND
	printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202'
	printf '\231\002\002\043'
	# MODE.Exec 32-bit, TIP.PGE 0x8049000 (sext-48)
	printf '\231\002\161\000\220\004\010\000\000'
	# FUP 0x8049007, TIP.PGD without ip: tracing stops before 8049007
	printf '\175\007\220\004\010\000\000\001'
} >"$d/pt.bin"
printf 'ptdbg-bundle 1\ncpu 0 0 0\nmap 0x0 0x7 0x8049000 code.bin\nthread 7 pt.bin 0x0\n' \
	>"$d/manifest"
"$PTDBG" -batch --load "$d" -ex 'info record' -ex 'record instruction-history 1,10' \
	>"$TMPDIR/out" 2>&1 || { cat "$TMPDIR/out"; exit 1; }
grep -v '^Active record target\|^Recording format' "$TMPDIR/out" >"$TMPDIR/got"
printf '%s\n' \
	'Recorded 5 instructions in 1 functions (0 gaps) for thread 1 (LWP 7).' \
	'1	   0x08049000:	push   %ebp' \
	'2	   0x08049001:	mov    %esp,%ebp' \
	'3	   0x08049003:	dec    %eax' \
	'4	   0x08049004:	mov    %eax,%ebx' \
	'5	=> 0x08049006:	nop' >"$TMPDIR/want"
diff -u "$TMPDIR/want" "$TMPDIR/got"
