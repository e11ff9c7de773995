#!/usr/bin/env bash
# What gdb users type every day at a stop, compared with gdb 13 on the
# same program and stop (outputs identical but for stack addresses).
# C: casts to pointers to functions ("(void (*)(void))"; C's "()" has no
# prototype), a typedef'd pointer's name before its value ("(op_fn) 0x...
# <sub>"), unsigned char pointers with their type and string, convenience
# variables (set $x, members of one, ++, +=), $_exitcode and $_exitsignal,
# $_ and $__ after x, x without arguments (the last count), displays
# of locals only in their block, enable/disable/delete display,
# printf with its conversions and errors, /f (an integer's bytes as a
# float of its size), x/f, /r, a function's first byte under /x, print
# pretty, 0b literals, shifts by the width or more (0, with gdb's
# warning), -0.0, long double literals and arithmetic, "ab" "cd", the
# registers' parts ($ax, $al, $ah, $r8w, $r8l) typed int64_t...int8_t,
# . and -> as gdb's value_struct_elt (pointers followed, arrays decayed).
# C++: true, false and bool, comparisons that are bool, class names as
# types (qualified, with or without the keyword, a class named as its
# constructor), the named casts, a base part by a cast, pointers cast to a
# base or back moved to that part, virtual bases where the vtable puts
# them, $pc's "void (*)(void)", "(void)" for functions without
# parameters, the vtable pointer with its symbol under /x and left out of
# ptype, "<No data fields>", print pretty's "members of Class:", and info
# frame (the function without parameters, "source language c++", the
# arguments as print frame-arguments says).
. "$(dirname "$0")/lib.bash"
need_prereqs values funcptr shapes lambdas inherit segfault
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g' -e 's/\b140[67][0-9]\{11\}\b/STACKDEC/g' \
			-e 's/[0-9.]*e-310\b/STACKF/g' -e 's/nan(0x[0-9a-f]*)/nan(N)/g'
}

# compare NAME PROG REGEX...: identical outputs, each REGEX in ptdbg's
compare() {
	local name=$1 prog=$2 want
	shift 2
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	fi
	for want in "$@"; do
		qgrep -- "$want" "$TMPDIR/$name.ptdbg" || die "$name: no line matching $want"
	done
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}

main_line=$(line_of values.c 'stop here: main')

# 1. C: casts to function pointers, pointer prefixes, formats, literals.
CMDS=("break $main_line" run
	'p (void(*)())main' 'p (void(*)(void))main' 'whatis (void(*)())0' 'ptype int (*)(int)'
	'whatis (int (*)(int, ...))0' 'whatis int(*)(long, char*)' 'p (char (**)(void))0'
	'p sizeof(void(*)())' 'p (unsigned char*)g_msg' 'p (signed char*)g_msg'
	'p (const char*)g_msg' 'p (char * const)g_msg' 'whatis (const char * volatile)0'
	'p (const unsigned char *)g_msg' 'p/x main' 'p/d main' 'p/t main' 'p/f n' 'p/f 3'
	'p/f c' 'p/f sh' 'p/f u' 'p/f col' 'p/f flag' 'p/f arr' 'p/f pt' 'p/f g_bytes'
	'p/f d' 'p/f $eflags' 'p/rx n' 'p/xr n' 'output/r n' 'x/2f &d' 'x/2fg &d'
	'x/2fb &n' 'x/fh &n' 'x/f &d' 'p 0b101' 'p 0B11u' 'p 0b' 'p 0b102' 'p -0.0'
	'p 1 << 40' 'p 1 << 32' 'p 1 << 31' 'p 1 >> 40' 'p 1L << 64' 'p 1 << -1'
	'p -8 >> 1' 'p 1u << 33' 'p 1L << 40'
	'whatis $rax' 'whatis $eax' 'whatis $ax' 'whatis $al' 'whatis $ah' 'whatis $r8d'
	'whatis $r8w' 'whatis $r8l' 'whatis $cs' 'whatis $fs_base' 'whatis $esp' 'whatis $rax + 1'
	'whatis $al + 1' 'p/x $ax' 'p $al + 1' 'p $ah' 'p $eip' 'p $r15b' 'p/x $r9w' 'p/x $r9l'
	'p 1.0L' 'whatis 1.0L' 'p 1.0L/3' 'p 0.1L' 'p -1.0L/3' 'p 1.0L/3 == 1.0/3' 'p 1e4000L'
	'p 0.1f' 'p (double)(1.0L/3)' 'output 1.0L/7' "p ''" "p 'a" "p 'ab'" 'p "abc" "def"'
	'p sizeof("ab" "cd")' 'p pp.x' 'p pts.y' 'p pts->x' 'p &pts->y' 'p pt->x' 'p un->i'
	'p (&pp).x' 'p g_rec.next.next.id' 'p n->x' 'p p.x' 'p nullp->x' 'whatis pp.x')
compare c-exprs values '^\$[0-9]* = (void (\*)(void)) 0x[0-9a-f]* <main>$' \
	'^\$[0-9]* = (unsigned char \*) 0x[0-9a-f]* "hello"$' '^warning: left shift count >= width of type$'

# 2. Convenience variables and printf.
CMDS=("break $main_line" run 'p $x' 'set $x = 5' 'p $x' 'p $x * 2' 'p $x = 7' 'p $x++'
	'p $x' 'p $x += 3' 'p ++$x' 'whatis $x' 'set $d = 2.5' 'p $d * 2' 'whatis $d'
	'set var $s = g_msg' 'p $s' 'set $a = arr' 'p $a' 'p $a[2]' 'set $p = &arr[1]' 'p *$p'
	'p &$x' 'set $y = pt' 'p $y' 'set $y.x = 9' 'p $y' 'p $y.y = $y.x + 1' 'p $y' 'p pt'
	'set $r = g_rec' 'set $r.pos.y = 77' 'p $r.pos' 'p g_rec.pos' 'p $nonesuch'
	'printf "%d\n"' 'printf "%d\n", 1, 2' 'printf hi' 'printf "abc' 'printf "x" 5'
	'printf "%s|\n", buf' 'printf "%s|\n", nullp' 'printf "%5d|%-4x|%05.1f|%c%c\n", n, n, d, c, 66'
	'printf "%lu %ld %lld %hhd\n", u, big, big, 300' 'printf "%p %p\n", &g_counter, 0'
	'printf "%d\n", pt' 'printf "%f\n", n' 'printf "%s\n", n' 'printf "%%|%e|%g\n", d, f'
	'printf "no newline"' 'printf "\n%x %o %#x %X\n", 255, 8, 255, 255'
	'printf "%s %s\n", g_msg, g_rec.name' 'printf "%10s|%.2s|\n", g_msg, g_msg'
	'printf "%d %i %u\n", (char)65, sh, -1' 'printf "%d\n", nosuch' 'printf "%5c|\n", 65'
	'printf "%a\n", 1.0' 'printf "%n\n", 1' 'printf ""' 'printf' 'printf "%s\n", 0'
	'printf "%zu %lx\n", sizeof(pt), -1' 'printf "%d, %d\n", arr[1], (n, 3)'
	'printf "%s %c\n", "lit", "lit"[1]' 'printf "%f %Lf\n", f, d' 'printf "%*d\n", 5, 1')
compare conv-printf values '^\$[0-9]* = {x = 9, y = 10}$' '^   10|a   |002.2|AB$'

# x: $_ and $__ after it, the last count again without arguments, a
#    byte unit after strings and instructions
CMDS=("break $main_line" run 'p $_' 'x/4xw &arr' 'p $_' 'p $__' 'whatis $__' 'x' 'x/2xg &arr'
	'p $_' 'p $__' 'x/3db g_bytes' 'p $_' 'p $__' 'x/2i $pc' 'p $_' 'p $__' 'x' 'x/x &n'
	'x/2c g_msg' 'p $_' 'p $__' 'x/a $sp' 'p $__' 'x/2f &d' 'p $__' 'x/2s g_msg' 'p $_'
	'p $__' 'x' 'x/2dh &arr' 'x' 'p *$_' 'p $_ + 1')
compare x-last values '^\$[0-9]* = (int32_t \*) STACK$' '^type = int32_t$'

# display: one of a function's locals shows only in that function (info
#    display says it cannot be evaluated elsewhere), one that does not
#    parse is not made, and after finish from an outer frame the displays
#    are the new frame's
CMDS=('break helper' run 'display depth' 'display local' 'display nosuch' 'display/x depth'
	'display g_counter' 'info display' c c up display finish next next 'info display' display
	'undisplay 1' 'info display')
compare display-blocks values 'local (cannot be evaluated in the current context)$'
CMDS=("break $main_line" run 'display n' 'display pt' 'display/x n' 'disable display 1' 'info display'
	display next 'enable display 1' 'disable display' 'info display' next 'enable display'
	'disable display 7' 'delete display 2' 'info display' next 'disable display 1 3'
	'info display' 'enable display 1-3' 'info display' 'disable display x' 'info display')
compare display-enable values '^1:   n  n$' '^3: /x n = 0xa$'

# $_exitcode after an exit, $_exitsignal after a fatal signal
CMDS=('p $_exitcode' run 'p $_exitcode' 'p $_exitsignal' 'whatis $_exitcode' 'p $_exitcode + 1')
compare exitcode values '^\$2 = 0$'
CMDS=('p $_exitsignal' run c 'p $_exitsignal' 'p $_exitsignal == 11')
compare exitsignal segfault '^\$2 = 11$'

# 3. set print pretty: a member per line, also in info locals and output.
CMDS=('show print pretty' "break $main_line" run 'set print pretty on' 'show print pretty'
	'p pts' 'p g_rec' 'p un' 'p arr' 'p/x pt' 'output pt' 'info locals' 'p g_zero'
	'set print pretty off' 'show print pretty' 'p pt' 'set print pretty bogus'
	'set print pretty' 'p origin')
compare pretty values '^  pos = {$' '^    x = 3,$' '^Pretty formatting of structures is on\.$'
CMDS=('break geo::Rect::area' run 'set print pretty on' 'p *this' 'p/x *this')
compare pretty-cxx shapes '^  members of geo::Rect:$'
CMDS=('break main' run next next next 'set print pretty on' 'p s1' 'p r1')
compare pretty-nodata lambdas '^  }, <No data fields>}$'

# 4. A typedef'd pointer to a function keeps its name.
CMDS=('break apply' run 'p f' 'p ops[1]' 'p (op_fn)mul' 'p (int(*)(int,int))mul' 'p *&f'
	'output f' 'info args')
compare typedef-ptr funcptr '^\$1 = (op_fn) 0x[0-9a-f]* <sub>$'

# 5. C++: bool, type names, casts, $pc, the vtable pointer.
CMDS=('break geo::Rect::area' run 'p $pc' 'whatis $pc' 'p (void(*)())0x401000' 'whatis (void(*)())0'
	'p true' 'p false' 'p !true' 'whatis true' 'p sizeof(bool)' 'p (bool)5' 'p this == 0'
	'p w > h' 'p w < h && 1' 'whatis w<h' 'p !w' 'ptype bool' 'p true + 1'
	'p sizeof(geo::Rect)' 'whatis geo::Rect' 'p (geo::Shape*)this' 'p *(geo::Shape*)this'
	'whatis (geo::Rect*)0' 'ptype geo::Holder' 'ptype struct geo::Holder'
	'p sizeof(struct geo::Rect)' 'whatis struct geo::Rect' 'p static_cast<geo::Shape*>(this)'
	'p static_cast<int>(w)' 'p const_cast<geo::Rect*>(this)' 'p static_cast<double>(3)/2'
	'p reinterpret_cast<char*>(0)' 'whatis static_cast<bool>(1)' 'p/x *this' 'p/d *this'
	'ptype main' 'whatis &main' 'p geo::total')
compare cxx-exprs shapes '^\$1 = (void (\*)(void)) 0x[0-9a-f]* <geo::Rect::area() const+[0-9]*>$' \
	'^type = bool$' '_vptr.Shape = 0x[0-9a-f]* <vtable for geo::Rect+16>, id = 0x1}'

# 6. info frame in C++: the function without its parameters, the
#    language, the arguments in the print frame-arguments mode.
CMDS=('break geo::grow' run 'info frame' 'set print frame-arguments all' 'info frame'
	'set print frame-arguments presence' 'info frame' 'set print frame-arguments scalars' up
	'info frame')
compare info-frame-cxx shapes '^ rip = 0x[0-9a-f]* in geo::grow (shapes\.cc:[0-9]*); saved rip' \
	'^ source language c++\.$' '^ Arglist at STACK, args: r=\.\.\., k=@STACK: 2, p=@STACK: STACK, h=\.\.\.$'

# 7. ptype leaves the vtable pointer out (methods are compared apart: ptdbg
#    does not list them).
CMDS=('break geo::Rect::area' run 'ptype geo::Shape' 'ptype struct geo::Shape')
ptdbg_batch -- "$TESTPROGS/shapes" | norm >"$TMPDIR/ptype.ptdbg"
gdb_batch -- "$TESTPROGS/shapes" | norm |
	awk '/^type = / { in_t = 1 } in_t && /^  public:$/ { next } in_t && /^$/ { skip = 1 }
		/^}/ { skip = 0; in_t = 0 } !skip' >"$TMPDIR/ptype.gdb"
diff -u "$TMPDIR/ptype.gdb" "$TMPDIR/ptype.ptdbg" >&2 || die "ptype of a class with a vtable differs from gdb's"
qgrep '^    int id;$' "$TMPDIR/ptype.ptdbg" || die "no members in ptype"
! grep -q _vptr "$TMPDIR/ptype.ptdbg" || die "ptype shows the vtable pointer"

# 8. A class without data members of its own; a class named as its
#    constructor is; a derived object cast to a base.
CMDS=('break main' run next next next 'p s1' 'p/x s2' 'p r1' 'whatis Rect' 'p sizeof(Rect)'
	'p (Rect*)0' 'p (Rect)s1' 'p (Shape)s1' 'p ((Rect)s1).w' 'p static_cast<Rect>(s1)')
compare cxx-classes lambdas ', <No data fields>}$' '^type = Rect$'

# 9. Virtual bases where the vtable puts them, and pointers cast between a
#    class and its bases moved to the base's part (gdb's value_cast_pointers).
CMDS=('break use_counted' run 'p *c' up 'p a' 'p b' 'p/x a' 'p (Node)a' 'p *(Node*)&a' 'p (Named)a'
	'p (Counted)a' 'p (Base2*)&a' 'p *(Base2*)&a' 'p *(Counted*)&b' 'p *(Leaf*)(Base2*)&a'
	'p *(Named*)&a' 'p (Base2*)0' 'p static_cast<Base2*>(&a)' 'p (long)(Base2*)&a - (long)&a'
	'set print pretty on' 'p a')
compare virtual-bases inherit '<Named> = {_vptr.Named = 0x[0-9a-f]* <vtable for Leaf+160>}' \
	'^\$[0-9]* = {<Named> = <invalid address>, ' '^\$[0-9]* = 16$'
exit 0
