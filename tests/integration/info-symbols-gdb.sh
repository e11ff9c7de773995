#!/usr/bin/env bash
# info functions / variables / types [-q] [-n] [REGEX] as gdb 13 lists
# them: the header, the symbols with debug information grouped by file
# ("File values.c:"), globals before statics ("static int helper(int);"),
# each with its declaration line, base types without one, then the ELF
# symbols without debug information ("Non-debugging symbols:", PLT
# entries, crt code, static locals' ".N" symbols), and the regular
# expression errors.  Before run (the program's symbols only, whole
# listings) and live (libc's debug information from its separate file:
# file names as gdb names them, "./misc/single_threaded.c"; externals
# without a location left out), on -O0 and -O2 code.  ptdbg and gdb run
# the same commands; outputs must be identical but for gdb's
# thread-debugging lines and stack addresses.
. "$(dirname "$0")/lib.bash"
need_prereqs values values-O2 fib
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' | normalize
}

compare() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg's listing differs from gdb's (- gdb, + ptdbg)"
	fi
	qgrep -e "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

CMDS=('info functions' 'info variables' 'info types' 'info functions make_'
	'info variables g_' 'info types point' 'info functions ^hel' 'info variables total'
	'info functions ^_' 'info variables ^_' 'info functions zzzz' 'info types zzz'
	'info variables zzz' 'info functions plt' 'info functions ^[a-m]' 'info variables ^[a-z]'
	'info functions -n ^[_m]' 'info functions -q ^[_m]' 'info variables -q zzz'
	'info functions -x' 'info types -n x' 'info functions [' 'info variables a\('
	'info types \{1' 'info functions [b-a]' 'whatis s_total' 'ptype struct big')
compare O0 values '^98:	static int helper(int);$'
qgrep -e '^Non-debugging symbols:$' "$TMPDIR/O0.ptdbg" || die "O0: no non-debugging symbols"
qgrep -e '^0x0000000000401030  printf@plt$' "$TMPDIR/O0.ptdbg" || die "O0: no PLT symbol"
qgrep -e '^	unsigned long$' "$TMPDIR/O0.ptdbg" || die "O0: base types not as gdb names them"
compare O2 values-O2 '^File values.c:$'

CMDS=('break main' run 'info functions ^pthread_mutex_lock$' 'info variables ^environ$'
	'info types ^pthread_t$' 'info functions ^_dl_start' 'info functions ^gettimeofday'
	'info functions fib' 'info types ^Dl_info$' 'info variables ^__libc_single'
	'info variables ^std' 'info types ^FILE$' 'info variables ^completed')
compare live fib '^File ./misc/single_threaded.c:$'
