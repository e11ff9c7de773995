#!/usr/bin/env bash
# info proc (cmdline, cwd, exe, mappings, stat, status, all, a pid, errors)
# and info inferiors (no program, loaded, running, killed), compared line
# for line with gdb 13 on testprogs/fib.  Numbers that differ from run to
# run (pids, fault counts, times, sizes, state flags) are masked; the
# labels, their order, the mapping rows' layout, perms and files are not.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
CMDS=('info inferiors' 'info proc' 'info proc mappings' 'break fib' 'run' 'info inferiors'
	'info proc' 'info proc mappings' 'info proc cmd' 'info proc cwd' 'info proc exe'
	'info proc stat' 'info proc status' 'info proc all' "info proc exe $$" 'info proc foo'
	'info proc 999999' 'info proc mappings 999999' 'info proc 12 34' 'kill' 'info inferiors')
mask() {
	grep -v -e libthread_db -e '^\[Thread debugging' -e '^Kill the program being debugged' |
		sed -e 's/0x[0-9a-f]*/0xH/g' -e 's/:\t *[0-9]* kB$/:\tN kB/' -e 's/[0-9][0-9]*/N/g' -e 's/^\(State:\t\).*/\1S/' -e 's/^\(State: \).*/\1S/' \
			-e 's/^\(SpeculationIndirectBranch:\t\).*/\1X/' |
		# (ptdbg pins the program to one CPU: a mask of another width)
		sed -e 's/^\(Cpus_allowed\(_list\)\?:\t\).*/\1C/' -e 's/^\(Mems_allowed:\t\).*/\1M/' |
		# (the inferior row's padding follows the pid's digits)
		sed -e '/^\* N  /s/  */ /g'
}
(cd "$TMPDIR" && ptdbg_batch -- "$TESTPROGS/fib") | mask >"$TMPDIR/ptdbg"
(cd "$TMPDIR" && gdb_batch -- "$TESTPROGS/fib") | mask >"$TMPDIR/gdb"
diff -u "$TMPDIR/gdb" "$TMPDIR/ptdbg" >&2 || die "ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep '^Mapped address spaces:$' "$TMPDIR/ptdbg" || die "no mappings"
qgrep "^exe = '.*/fib'$" "$TMPDIR/ptdbg" || die "no exe"
qgrep -E '^\* N process N N \(native\) .*/fib $' "$TMPDIR/ptdbg" || die "no inferior row"
note "$(wc -l <"$TMPDIR/ptdbg") lines identical to gdb's"
