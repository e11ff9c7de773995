#!/usr/bin/env bash
# info scope LINESPEC as gdb 13 says it, on test programs at -O0 and -O2
# (C and C++): the symbols of the block at LINESPEC and of the blocks
# around it up to its function or inlined call, each "Symbol X is ...,
# length N." with its location: on the stack (DW_OP_fbreg), in a
# register, static storage, a constant and constant bytes, optimized
# out, location lists ("multi-location:" with gdb's Base address/Range
# lines), pieces, implicit values and pointers, entry values, labels,
# local typedefs, an inlined call's own function (C++ names as gdb's),
# the locals an inlined copy lost (inherited from its abstract origin),
# a VLA's length 0, a lambda's body, the order gdb's hash tables give an
# inner block's symbols; and gdb's errors and "contains no locals".  The
# same commands under gdb and ptdbg, without running the programs:
# outputs must be identical.
. "$(dirname "$0")/lib.bash"
need_gdb

# scope PROG SPEC...: info scope SPEC for each, in ptdbg and gdb
n=0
scope() {
	local prog=$1 s
	shift
	need_prereqs "$prog"
	CMDS=()
	for s in "$@"; do CMDS+=("echo @@ $s\\n" "info scope $s"); done
	ptdbg_batch -- "$TESTPROGS/$prog" </dev/null | normalize >"$TMPDIR/$prog.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" </dev/null | normalize >"$TMPDIR/$prog.gdb"
	diff -u "$TMPDIR/$prog.gdb" "$TMPDIR/$prog.ptdbg" >&2 ||
		die "$prog: ptdbg differs from gdb (- gdb, + ptdbg)"
	n=$((n + $(wc -l <"$TMPDIR/$prog.ptdbg")))
}

# (a pattern, not a number, names each line: line_of)
fib_l=$(line_of fib.c 'return fib(n - 1)') || exit 1
val_l=$(line_of values.c 'calls++') || exit 1
stm_l=$(line_of statem.c 'char c = *s') || exit 1
jit_l=$(line_of jit.c 'memcpy(page + TRAMP + 5, &rel, 4);') || exit 1
dl_l=$(line_of dlloop.c 'void *h = dlopen') || exit 1
lp_l=$(line_of loops.c 'int sum = 0;') || exit 1
ab_l=$(line_of abort.c 'abort();') || exit 1
la_l1=$(line_of lambdas.cc 'return a;') || exit 1
la_l2=$(line_of lambdas.cc 'return acc + s->area()') || exit 1
sh_l=$(line_of stlheavy.cc 'v.push_back({ kv.first') || exit 1
sp_l=$(line_of stlprint.cc 'g_sp = std::make_shared<int>(8);') || exit 1
in_l=$(line_of inherit.cc 'virtual ~Named() {}') || exit 1

scope fib '' nosuch 99999 '*0' printf puts fib main fib.c:3 '*main' "$fib_l"
scope fib-O2 fib main
scope values main helper sum make_point name_of "$val_l"
scope values-O2 main helper sum make_point make_big name_of
scope vm run
scope vm-O2 run main
scope statem-O2 lex main "$stm_l"
scope libcb scale main
scope libcb-O2 scale main
scope jit-O2 part_rwx main "$jit_l"
scope jit part_rwx part_text
scope dlloop main "$dl_l"
scope loops-O2 main "$lp_l"
scope abort-O2 check main "$ab_l"
scope synthptr-O2 main first sum
scope busy-O2 work worker main
scope forkchain-O2 compute main
scope lambdas main checked "$la_l1" "$la_l2"
scope shapes-O2 main total grow
scope stlheavy "$sh_l" rank
scope stlheavy-O2 main "$sh_l"
scope stlprint-O2 "$sp_l"
scope inherit main "$in_l"

# no program: gdb's message, and no locals at an address
CMDS=('info scope main' 'info scope *0x401000' 'with print pretty -- info scope main')
ptdbg_batch </dev/null >"$TMPDIR/none.ptdbg"
gdb -nx -batch "${CMDS[@]/#/-ex=}" </dev/null >"$TMPDIR/none.gdb" 2>&1
diff -u "$TMPDIR/none.gdb" "$TMPDIR/none.ptdbg" >&2 || die "no program: ptdbg differs from gdb (- gdb, + ptdbg)"
n=$((n + $(wc -l <"$TMPDIR/none.ptdbg")))

out=$(cat "$TMPDIR"/*.ptdbg)
for form in 'is a complex DWARF expression:' 'is multi-location:' 'Base address 0x' \
	'is a variable in \$r' 'is in static storage at address 0x' 'is a constant with value' \
	'is constant bytes: ' 'is optimized out\.$' 'DW_OP_implicit_pointer' 'DW_OP_entry_value' \
	'-byte piece' 'is a label at address 0x' 'is a typedef\.$' ', length 0\.$' \
	'^Symbol operator()(int) const is a function at address 0x' 'contains no locals or arguments' \
	'^Function "nosuch" not defined\.$'; do
	printf '%s\n' "$out" | qgrep -e "$form" || die "no \"$form\" line compared"
done
note "$n lines identical to gdb's"
