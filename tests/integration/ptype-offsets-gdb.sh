#!/usr/bin/env bash
# ptype/o: gdb's offset and size comments, bit-fields (byte:bit), holes
# and padding in bytes and bits, nested structs and unions expanded with
# their own totals, the header only for a struct or union itself (not
# through a typedef or pointer), C++ bases in the header, the access label
# a class's own vtable pointer brings; compared line for line with gdb 13
# on testprogs/values (C) and testprogs/inherit and lambdas (C++).
. "$(dirname "$0")/lib.bash"

need_prereqs values inherit lambdas
need_gdb
compare() { compare_gdb "$@"; }
CMDS=('ptype/o struct rec' 'ptype /o union num' 'ptype/o struct big' 'ptype/o point_t'
	'ptype/o struct rec *' 'ptype/o g_rec' 'ptype/o int' 'whatis/o g_rec' 'ptype struct rec')
compare c "$TESTPROGS/values"
qgrep '^/\* XXX  4-byte hole      \*/$' "$TMPDIR/c.ptdbg" || die "c: no hole"
qgrep '^/\*     48: 3   |       4 \*/    unsigned int mode : 5;$' "$TMPDIR/c.ptdbg" || die "c: no bit-field"
CMDS=('ptype/o Named' 'ptype/o Counted' 'ptype/o Registry' 'ptype/o Node' 'ptype/o Leaf')
compare cxx "$TESTPROGS/inherit"
CMDS=('ptype/o Rect' 'ptype/o Square' 'ptype/o Shape')
compare cxx2 "$TESTPROGS/lambdas"
