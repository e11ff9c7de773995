#!/usr/bin/env bash
# C++ names as gdb 13 shows them, on testprogs/throw:
#  - frame lines (stops, bt) name a function with debug information
#    without its parameter types, with the argument values
#    ("catcher (v=1)");
#  - breakpoints are set by the plain name, the name with parameters and
#    the mangled name, and listed as "in catcher(int)";
#  - print shows values demangled ("<thrower(int)>", "<depth>"), while
#    disassembly, x, info line and the /a format keep the mangled names
#    ("<_Z7throweri+11>", "<_ZL5depth>"), as gdb with asm-demangle off;
#  - info registers rip is demangled;
#  - the function-call history names functions demangled with their
#    parameters ("catcher(int)"), as gdb's record btrace does.
. "$(dirname "$0")/lib.bash"
need_prereqs throw
need_gdb
prog=$TESTPROGS/throw

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' |
		norm_stack
}

CMDS=("break catcher" "break thrower(int)" run bt c bt 'x/2i $pc' "p thrower" "p &depth"
      'info line *$pc' 'p/a $pc' 'output/a $pc+1' "info registers rip" "info breakpoints"
      "delete 2" "break _Z7throweri" c "tbreak 27" c)
pt=$(ptdbg_batch -- "$prog" | clean) || die "ptdbg failed"
gd=$(gdb_batch -- "$prog" | clean)
note "ptdbg:"; note "$pt"
echo "$pt" | qgrep '^#1  0x[0-9a-f]* in catcher (v=1) at throw.cc:23$' || die "no demangled frame"
echo "$pt" | qgrep '<_Z7throweri+11>' || die "no mangled name in the disassembly"
echo "$pt" | qgrep '^\$1 = {void (int)} 0x[0-9a-f]* <thrower(int)>$' || die "no demangled value"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "C++ names differ from gdb"

# the function-call history
CMDS=("break catcher" run record "break 27" c "record function-call-history /c 1,5")
pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed (history)"
note "ptdbg (history):"; note "$pt"
exp=$'1\tcatcher(int)\n2\t  thrower(int)\n3\t    thrower(int)\n4\t      thrower(int)\n5\t        thrower(int)'
[ "$(echo "$pt" | grep -P '^\d+\t *[a-z]')" = "$exp" ] || die "the call history does not name C++ functions demangled"
exit 0
