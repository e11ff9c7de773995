# Backtrace comparison with gdb for the frame tests (sourced after
# lib.bash; not a test itself).
#
# norm_frames: the "@@ ..." markers and every frame line of a log, as
# "N ADDR FILE:LINE" -- the file kept for the test programs' own sources
# only (gdb and ptdbg name libc's source files and aliases differently),
# PLT stubs and unnamed code by name (their naming is what is tested),
# frame 0 without its address (gdb prints it only when the pc is mid-line
# by its reading of libc's line table).
# With KEEP_NAMES=1 every frame keeps its function's name.
norm_frames() {
	local drop='s/ =.*$//'
	[ "${KEEP_NAMES:-0}" = 1 ] && drop='s/ =(.*)$/ \1/'
	sed -n -E '/^@@/p
	/^#[0-9]+ /{
		s/^#([0-9]+) +(0x[0-9a-f]+ in )?([^ ]+) \(.*\)( at ([^ ]+):([0-9]+))?.*$/\1 \2 @\5:\6 =\3/
		s/ in / /
		s/@([^:]*\/)?([^/:]*):/@\2:/
		s/@([a-z0-9_-]+\.(c|cc)):([0-9]+) /\1:\3 /
		s/ @[^ ]* / /
		s/ =([^ ]*@plt|\?\?)$/ \1/
		'"$drop"'
		s/^0 0x[0-9a-f]+ ?/0 /
		p
	}'
}

# compare_frames NAME PROG [ARGS...]: runs CMDS in gdb (record full) and
# ptdbg; every "echo @@ X\n" in CMDS marks a place; the frames printed
# must be equal.  Fails when gdb printed no caller frame at all.
compare_frames() {
	local name=$1 prog=$2 g p
	shift 2
	g=$(gdb_batch -- "$TESTPROGS/$prog" "$@")
	p=$(ptdbg_batch -- "$TESTPROGS/$prog" "$@") || die "ptdbg failed: $p"
	printf '%s\n' "$g" >"$TMPDIR/$name.gdb"
	printf '%s\n' "$p" >"$TMPDIR/$name.ptdbg"
	norm_frames <"$TMPDIR/$name.gdb" >"$TMPDIR/$name.gdb.frames"
	norm_frames <"$TMPDIR/$name.ptdbg" >"$TMPDIR/$name.ptdbg.frames"
	grep -Eq '^#?[1-9]' "$TMPDIR/$name.gdb.frames" || die "$name: gdb printed no backtrace: $g"
	if ! diff -u "$TMPDIR/$name.gdb.frames" "$TMPDIR/$name.ptdbg.frames" >&2; then
		note "gdb:"; note "$g"; note "ptdbg:"; note "$p"
		die "$name: backtraces differ from gdb record full (--- gdb, +++ ptdbg)"
	fi
	note "ok $name: $(grep -c '^@@' "$TMPDIR/$name.gdb.frames") places, frames as gdb's"
}
