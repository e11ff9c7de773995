#!/usr/bin/env bash
# Values as gdb 13 shows them (issue 14): print of locals, arguments,
# globals, statics, structs, unions, enums, arrays, pointers, floats and
# bit-fields, the print formats, casts and arithmetic, $N history,
# ptype/whatis (typedefs, pointers to structs), ++ and --, info locals/args/frame, values in outer frames (up, down,
# frame N: registers unwound with the CFI), set var, x with types, @,
# display, finish's "Value returned" for every return kind, and the
# errors (bad pointers, unknown symbols, malformed expressions).  ptdbg
# and gdb run testprogs/values with the same commands; outputs must be
# identical after one normalisation: stack addresses (0x7ff..., or in
# decimal) become STACK: gdb's environment differs from ptdbg's, which
# moves the stack.  Frame lines carry their arguments, as gdb's default
# `print frame-arguments scalars` shows them; the last scenario goes
# through every mode.
. "$(dirname "$0")/lib.bash"
need_prereqs values
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g' -e 's/\b140[67][0-9]\{11\}\b/STACKDEC/g'
}

# compare NAME [REGEX]: the outputs must be identical and contain REGEX
# (default: a printed value).
compare() {
	local name=$1 want=${2:-'^\$[0-9]* = '}
	ptdbg_batch -- "$TESTPROGS/values" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/values" | norm >"$TMPDIR/$name.gdb"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg's values differ from gdb's (- gdb, + ptdbg)"
	fi
	# the scenario must have shown values, not only errors
	grep -q -- "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

main_line=$(line_of values.c 'stop here: main')

# 1. Every kind of variable in main, formats, casts, arithmetic, history,
#    types, info locals/args.
CMDS=("break $main_line" run
	'print n' 'print c' 'print sh' 'print u' 'print big' 'print f' 'print d'
	'print arr' 'print p' 'print *p' 'print pt' 'print pp' 'print pp->x' 'print un'
	'print col' 'print buf' 'print flag' 'print nullp' 'print *nullp' 'print pts'
	'print g_counter' 'print s_total' 'print g_ratio' 'print g_arr' 'print g_zero'
	'print g_msg' 'print g_rec' 'print origin' 'print g_bytes' 'print &g_rec'
	'print &n' 'print main' 'print &main' 'print *g_msg' 'print arr[2]'
	'print arr[1]+arr[2]*2' 'print/x n' 'print/x arr' 'print/x pt' 'print/t n'
	'print/o n' 'print/c n' 'print/d c' 'print/x sh' 'print/u sh' 'print/z n'
	'print/x d' 'print/d d' 'print (char)n' 'print (long)u' 'print (unsigned char)300'
	'print n/3.0' 'print n > 5' 'print $1' 'print $' 'print $$2' 'print $rip'
	'print/x $rip' 'print f*2' 'print g_rec.next->pos' 'print &arr[1]' 'print *pp'
	'print (long)&pt == (long)pp' 'print sizeof(pt)' 'print sizeof(int)' 'print -n'
	'print 10/3' "print 'A'" "print 'A' + 1" 'print "hi"' 'print 1.0/3'
	'print g_rec.name' 'print *g_rec.next' 'print un.f' 'print un.b[2]' 'print/s buf'
	'print g_rec.flags' 'print g_rec.mode' 'print/x g_rec' 'print pts[1].y'
	'print arr[1]@2' 'print *arr@3' 'print 4000000000' 'print 0xffffffff'
	'print 1.5f' 'print 10 > 3 && 2' 'print g_arr[1] == 2 ? 7 : 8' 'print $eflags'
	'print/x -1' 'print $nonexistent' 'print -5 / 2' 'print -5 % 3' 'print 7 >> 1'
	'print ~n' 'print !n' 'print (short)-1' 'print (unsigned short)-1' 'print g_ratio * 4'
	'print col == GREEN' 'print BLUE' 'print (enum color)1' 'print/d col'
	'whatis n' 'whatis pt' 'ptype pt' 'ptype g_rec' 'ptype un' 'ptype col'
	'whatis arr' 'ptype main' 'whatis &arr' 'ptype origin' 'whatis origin'
	'whatis pp->x' 'ptype int' 'whatis g_msg' 'ptype pp' 'whatis struct point'
	'ptype struct rec' 'ptype unsigned long' 'whatis &main' 'whatis arr[0]'
	'whatis 1.5f' "whatis 'a'" 'whatis 1 == 2' 'whatis sizeof(int)' 'whatis u + 1'
	'whatis sh + sh' 'whatis big * 2u'
	'whatis point_t' 'ptype point_t' 'whatis origin' 'ptype &origin' 'whatis &origin'
	'ptype &g_rec' 'ptype make_point' 'whatis point_t *' 'ptype const struct point *'
	'print g_counter++' 'print g_counter' 'print ++g_counter' 'print g_counter--'
	'print --g_counter' 'print arr[1]++' 'print arr' 'print n++ + 1' 'print 3++'
	'info locals' 'info args'
	'print nosuch' 'print 1 +' 'print )' 'print 5/0' 'print g_rec.nosuch' 'print n.x'
	'print &5' 'print pp.' 'print arr[' "print 'a" 'print $99' 'print *n@0'
	'ptype struct nosuch')
compare scalars

# 2. Frames: locals and registers of outer frames, info frame, set var.
CMDS=('break helper' run continue continue 'info locals' 'print depth' 'print calls'
	up 'print depth' 'print local' 'info args' 'print $pc' 'print $sp' 'print $rbp'
	'info registers rbx rbp rsp rip r12' 'print $rbx'
	'info frame' 'up 2' 'print n' 'print pt' 'info locals' 'info frame'
	'info registers rbp rsp rip' down
	'print depth' 'frame 0' 'print depth' 'info frame' 'set var depth = 77'
	'print depth' 'print local = depth * 2' 'print calls' 'set var calls = calls + 100'
	'print calls' 'print g_rec.mode = 3' 'print g_rec' 'print g_rec.flags = 9'
	'print g_ratio = 1.25' 'print g_counter += 8' finish finish
	'x/4dw g_arr' 'x/2xg &g_rec' 'x/s g_msg' 'x/3db g_bytes' 'x/2dw &origin')
compare frames

# 3. finish's "Value returned" for struct (rax:rdx and memory), double,
#    float (xmm0), char pointer, unsigned char, enum, long; display.
CMDS=('break make_point' 'break make_big' 'break half' 'break third' 'break name_of'
	'break low' 'break pick' 'break sum' run finish continue finish continue finish
	continue finish continue finish continue finish continue finish continue finish
	'print $' 'print $$3' 'print $5' 'print $$' 'display g_counter'
	'display/x g_bytes' 'display n' 'info display' next 'undisplay 1' next)
compare finish

# 4. Edges: max-value-size, casts of pointers to structs, floating
#    infinities and NaN, int overflow, string literals, bytes of code.
CMDS=('break sum' run 'print *a@300000' 'print (struct point *)a' 'print *(struct point *)a'
	'print ((struct point *)a)->y' 'print &((struct point *)a)->y' 'print &*a' 'print *&*a'
	'print -a[0]' 'print !a' 'print ~a[1]' 'print a[1] % 7' 'print 7.5 / 2' 'print 7 / 2.0f'
	'print 1e10' 'print 1.0 / 0' 'print -1.0 / 0' 'print 0.0 / 0' 'print 100000 * 100000'
	'print 100000L * 100000' 'print 2147483647 + 1' 'print -(-2147483648)' "print 'A' == 65"
	'print "abc"[1]' 'print sizeof("abc")' 'whatis "abc"' 'print/c *a@4' 'print/x *a@4'
	'print/x *(unsigned char *)main@30' 'print/d (char)200' 'print/u (char)200'
	'print/t (unsigned char)5' 'print/o 0' 'print/x (short)-2' 'print/z (char)1'
	'print/a 0x401000' 'print/s g_msg' 'print/x g_msg' 'print/d g_ratio')
compare edges

# 5. Before `run`: globals, types and functions come from the executable.
CMDS=('print g_counter' 'print g_arr' 'print g_msg' 'print origin' 'ptype struct rec'
	'print main' 'print $pc' 'print n' 'info locals' 'info args' 'info frame'
	'set var g_counter = 5' 'print sizeof(g_rec)' 'x/2dw &g_arr' 'whatis g_rec.next'
	'display g_counter' 'finish')
compare before-run

# 6. Frame lines with their arguments, as gdb prints them by default
#    (print frame-arguments scalars): stops, bt, up/down/frame, finish, in
#    every mode, and the setting shown and set as gdb's.
CMDS=('show print frame-arguments' 'break helper' 'break name_of' 'break make_point'
	'break low' run bt continue up down 'frame 2' continue continue continue bt finish
	continue finish 'set print frame-arguments none' bt 'set print frame-arguments presence'
	'frame 1' 'set print frame-arguments all' 'frame 0' 'show print frame-arguments'
	'set print frame-arguments' 'set print frame-arguments bogus' 'set print frame-arguments sc'
	'show print frame-arguments')
compare frame-args '^Breakpoint 1, helper (depth=1) at values\.c:'
