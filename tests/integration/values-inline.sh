#!/usr/bin/env bash
# Values of inlined frames as gdb 13 shows them (issue 14), on
# testprogs/inlstep-O2: info args, info locals and print in the frame of
# an inlined call (its DW_TAG_formal_parameter and DW_TAG_variable DIEs,
# named through DW_AT_abstract_origin, with location lists), the
# variables of the frames around it after up/frame N, what is not in
# scope there, <optimized out>, info frame in them ("inlined into frame
# N"), and the arguments in frame lines with
# gdb's entry values ("n=n@entry=2": DW_OP_entry_value and the caller's
# DW_TAG_call_site_parameter).  ptdbg and gdb run the same commands
# (`set print frame-arguments scalars` is gdb's default); the outputs
# must be identical.
. "$(dirname "$0")/lib.bash"
need_prereqs inlstep-O2 inline-O2
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' -e '^Run till exit' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}

# compare NAME PROG REGEX: identical outputs that contain REGEX
compare() {
	local name=$1 prog=$2 want=$3
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg's values differ from gdb's (- gdb, + ptdbg)"
	fi
	grep -q -- "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

# 1. Into twice and scale (inlined), their arguments and locals, up into
#    the inlined caller and the real one, back down; out again.
CMDS=('set print frame-arguments scalars' 'break work' run step step 'info args' 'info locals'
	'print a' 'print b' 'print t' step 'info args' 'info locals' 'print x' 'print k' 'print y'
	'print a' 'print x * k + 1' bt up 'info args' 'info locals' 'print a' 'print b' 'print x'
	up 'info locals' 'print t' 'print i' 'print n' 'info args' 'frame 1' 'print a' 'frame 0'
	'print y' down step step 'info locals' 'print y' step bt 'info args' finish 'info locals'
	'info args' bt finish 'info locals' 'info args')
compare inline-frames inlstep-O2 '^x = 1'

# 2. Entry values of real functions: work's n and leaf's v in frame
#    lines and info frame, print of them later in the function.
CMDS=('set print frame-arguments scalars' 'break work' run 'info args' 'print n' next next next
	next 'info args' 'print n' bt 'break leaf' continue 'info args' 'print v' bt
	'info frame' finish 'print n' continue bt)
compare entry-values inlstep-O2 'n=n@entry=4'

# 3. inline-O2: square's x and r are optimized out where gdb says so.
CMDS=('set print frame-arguments scalars' 'break compute' run step step step 'info args'
	'info locals' 'print x' 'print r' bt up 'info args' 'info locals' up 'info locals'
	'print t' step step 'info locals' bt)
compare optimized-out inline-O2 '<optimized out>'

# 4. info frame in inlined frames (gdb's "inlined into frame N", the
#    levels counting them) and in the real frames around them.
CMDS=('set print frame-arguments scalars' 'break work' run step step step 'info frame' up
	'info frame' up 'info frame' 'frame 0' step step step 'info frame' up 'info frame' up
	'info frame' up 'info frame')
compare info-frame inlstep-O2 'inlined into frame 2, caller of frame at STACK'
exit 0
