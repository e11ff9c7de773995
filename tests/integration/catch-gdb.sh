#!/usr/bin/env bash
# catch and tcatch compared with gdb 13 on the same programs: the C++
# exception catchpoints (catch throw|catch|rethrow, set on libstdc++'s
# probes before the program runs) when set, in info breakpoints, at their
# stops live ("Catchpoint N (exception thrown), 0x... in __cxa_throw ()
# from /lib/x86_64-linux-gnu/libstdc++.so.6": the library named as the
# dynamic linker names it), with conditions, tcatch, delete, disable,
# enable and save breakpoints, and in the recorded past (gdb record full:
# continue and reverse-continue stop at them as live).
. "$(dirname "$0")/lib.bash"
need_prereqs throw throw-O2
need_gdb

# gdb's record full cannot record the AVX-512 string functions of glibc
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX2,-AVX,-EVEX,-RTM,-AVX_Fast_Unaligned_Load,-ERMS

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' | normalize
}

# compare NAME PROG REGEX: identical outputs containing REGEX
compare() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2 ||
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

# 1. set before run, listed, hit live; tcatch goes when hit
for p in throw throw-O2; do
	CMDS=('catch throw' 'catch catch' 'catch rethrow' 'tcatch throw' 'info breakpoints'
		'run' 'bt 1' 'continue' 'info breakpoints' 'continue')
	compare "live-$p" "$p" '^Catchpoint 2 (exception caught), 0x[0-9a-f]* in __cxa_begin_catch () from '
done

# 2. conditions, disable/enable/delete, save breakpoints, bad subcommands
CMDS=('tcatch catch' 'catch throw' 'condition 2 depth > 3' 'disable 1' 'info breakpoints'
	'enable 1' 'disable 2' 'enable 2' 'run' 'continue' 'catch rethrow' 'disable 3'
	"save breakpoints $TMPDIR/saved" "shell cat $TMPDIR/saved" 'delete 2'
	'info breakpoints' 'catch foo' 'tcatch bar')
compare edit throw '^  condition \$bpnum depth > 3$'

# 3. the recorded past: forward and reverse-continue stop at them
CMDS=('start' 'record full' 'catch throw' 'catch catch' 'continue' 'continue'
	'reverse-continue' 'info breakpoints' 'continue' 'reverse-continue' 'reverse-continue'
	'continue' 'tcatch catch' 'continue' 'reverse-continue' 'continue' 'info breakpoints')
compare past throw '^No more reverse-execution history\.$'
