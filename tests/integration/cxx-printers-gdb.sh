#!/usr/bin/env bash
# The C++ library's classes as gdb 13 prints them with libstdc++'s
# pretty printers (printers.py), which ptdbg does natively
# (src/values/stl.c), on testprogs/stlprint: std::string (short, long,
# escaped, repeated, over 200 characters, wide), std::vector (empty,
# over 200 elements, of bool, of strings, of vectors, of structs),
# unique_ptr, shared_ptr and weak_ptr (empty, shared, expired),
# map/multimap/set/multiset (a walk of the tree, over 200 children),
# list, forward_list, deque, optional, pair, tuple, array (no printer),
# the unordered containers, stack, queue and priority_queue, and a
# struct holding some.  Each is printed by both
# debuggers and the outputs compared line for line, stack addresses
# aside:
#  - print, with /x (reaching the elements, not the strings), /r (raw
#    members), print pretty on (a line per child but an array's), output,
#    the value history, a pointer to one and its dereference;
#  - info locals, info args, frame lines and bt (frame arguments in
#    gdb's summary mode: "v=std::vector of length 3, capacity 3 = {...}",
#    references without their "@0x...:"), finish's "Value returned"
#    (a std::string returned in memory), display, display/x, display/r;
#  - containers holding garbage (a list whose node links to itself, a
#    tree whose links lead nowhere, a string with an absurd length):
#    gdb's output, within 200 children, and a vector whose elements
#    cannot be read gives gdb's error;
#  - in a recording: back before fill() and change() (reverse-next), the
#    globals they changed show the present memory as everything else in
#    the past (ptdbg says so), through the same printers: equal to what
#    gdb prints live at the present.
. "$(dirname "$0")/lib.bash"
need_prereqs stlprint
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}
compare() { # NAME [no]: ptdbg's and gdb's outputs of CMDS, compared (unless no)
	ptdbg_batch -- "$TESTPROGS/stlprint" | norm >"$TMPDIR/ptdbg.$1"
	gdb_batch -- "$TESTPROGS/stlprint" | norm >"$TMPDIR/gdb.$1"
	[ "$(wc -l <"$TMPDIR/gdb.$1")" -gt 5 ] || { cat "$TMPDIR/gdb.$1" >&2; die "$1: gdb did not get there"; }
	[ "${2:-}" = no ] && return 0
	diff -u "$TMPDIR/gdb.$1" "$TMPDIR/ptdbg.$1" >&2 ||
		die "$1: ptdbg's libstdc++ values differ from gdb's (- gdb, + ptdbg)"
}

vars=(s empty longs esc rep big ws vi vempty vbig vb vs vv vp vc vd up upnull uparr sp sp2 wp
	spnull sppt mi ms mv mempty mm si msi ss li ls lempty oi onone ostr pr ar as um us dq h
	upstr ovec opair wexp msv v200 v201 u16 u32 nul vm ums ums2 dqs tu tempty tv fl flempty st qu pq
	mbig)
prints=()
for x in "${vars[@]}"; do prints+=("print $x"); done
CMDS=("break $(line_of stlprint.cc '	fill();')" run "${prints[@]}"
	'p/r vi' 'p/r vs' 'p/r up' 'p/r sp' 'p/r mi' 'p/r li' 'p/r oi'
	'p/x vi' 'p/x mi' 'p/x s' 'p/x ms' 'p/d vb' 'p/x vs' 'p/x up' 'p/x sp' 'p/x oi' 'p/x pr'
	'p/c vc' 'p/x li' 'p/x dq' 'p/x um' 'p/x h' 'p &vi' 'p *&vi' 'p $1' 'p $' 'p h.v' 'p h.p'
	'output mi' 'echo \n' 'info locals'
	'set print pretty on' "${prints[@]}" 'info locals')
compare live
for want in '^\$8 = std::vector of length 3, capacity 3 = {1, 2, 3}$' \
	'^\$25 = std::map with 2 elements = {\[1\] = 2, \[3\] = 4}$' \
	'^\$20 = std::shared_ptr<int> (use count 2, weak count 1) = {get() = 0x[0-9a-f]*}$' \
	'^  \[3\] = 4$' '^    get() = 0x[0-9a-f]*$'; do
	qgrep "$want" "$TMPDIR/ptdbg.live" || die "live: no line matching $want"
done

# Frame arguments, finish, display.
# (main's lab and ev are not constructed yet: what their stack bytes
# hold differs from run to run)
CMDS=('break label' run bt 'info args' 'p v' 'p name' 'p m' up 'info locals' down
	finish 'display vi' 'display/x vi' 'display/r up' next next 'p ev' 'set print pretty on' 'bt')
compare frames no
CMDS=('break evens' "break $(line_of stlprint.cc 'return r; // label end')" run 'bt full' continue
	finish 'set print pretty on' 'bt full -1' 'p $')
compare frames-b no
for f in ptdbg gdb; do
	cat "$TMPDIR/$f.frames" "$TMPDIR/$f.frames-b" | grep -v -e '^ *lab = ' -e '^ *ev = ' >"$TMPDIR/$f.frames2"
done
diff -u "$TMPDIR/gdb.frames2" "$TMPDIR/ptdbg.frames2" >&2 ||
	die "frames: ptdbg's libstdc++ values differ from gdb's (- gdb, + ptdbg)"
for want in '^#0  label (v=std::vector of length 3, capacity 3 = {\.\.\.}, name="hello", m=std::map with 2 elements = {\.\.\.}, empty=std::vector of length 0, capacity 0, k=3) at stlprint.cc:' \
	'^Value returned is \$[0-9]* = "hello:8"$' \
	'^\$[0-9]* = std::vector of length 4, capacity 4 = {0, 2, 4, 6}$' \
	'^Value returned is \$[0-9]* = std::vector of length 4, capacity 4 = {0, 2, 4, 6}$' \
	'^        r = "hello:8"$' '^        vi = std::vector of length 3, capacity 3 = {1, 2, 3}$' \
	'^          \[3\] = 4$'; do
	qgrep "$want" "$TMPDIR/ptdbg.frames2" || die "frames: no line matching $want"
done

# Garbage: every print ends, as gdb's does.  (gdb prints what came
# before a vector's unreadable element and then the error; ptdbg the
# error.)
# (not info locals: gdb's printer never ends on bad_cycle)
CMDS=("break $(line_of stlprint.cc 'return 0; // corrupt here')" run 'p bad_list' 'p bad_map'
	'p bad_str' 'set print pretty on' 'p bad_list' 'p bad_map')
compare corrupt
# A vector whose elements cannot be read (gdb prints the summary before
# the error, and so does info locals, which names the variable); a tree
# whose links go round.
ex=()
for c in "break $(line_of stlprint.cc 'return 0; // corrupt here')" run 'p bad_vec' 'p 1' \
	'p bad_cycle' 'info locals'; do
	ex+=(-ex "$c")
done
timeout 60 "$PTDBG" -batch "${ex[@]}" "$TESTPROGS/stlprint" >"$TMPDIR/badvec" 2>&1 </dev/null
for want in 'Cannot access memory at address 0x20' '\$1 = 1' \
	'\$2 = std::map with 5 elements<error reading variable: the tree.s links do not end (a walk of more than 256 nodes)>' \
	'bad_vec = std::vector of length -4, capacity -4 = {<error reading variable bad_vec (Cannot access memory at address 0x20)>' \
	'bad_cycle = std::map with 5 elements<error reading variable: .*>' 'bad_str = <error: Cannot access memory at address 0x18>'; do
	grep -x "$want" "$TMPDIR/badvec" >/dev/null || {
		cat "$TMPDIR/badvec" >&2
		die "garbage: no line matching $want"
	}
done

# The past: memory is the present memory, printed by the same printers.
globals=('p g_vec' 'p g_map' 'p g_list' 'p g_set' 'p g_sp' 'p g_str' 'p vi' 'p mi')
CMDS=("break $(line_of stlprint.cc '	fill();')" run record next next reverse-next reverse-next
	'echo BEGIN\n' "${globals[@]}" 'set print pretty on' "${globals[@]}" 'echo END\n')
ptdbg_batch -- "$TESTPROGS/stlprint" | norm >"$TMPDIR/ptdbg.past"
sed -n '/^BEGIN$/,/^END$/p' "$TMPDIR/ptdbg.past" |
	grep -v -e '^warning: memory is shown as it is now' -e '^note: the registers' >"$TMPDIR/ptdbg.past.sec"
CMDS=("break $(line_of stlprint.cc '	corrupt();')" run 'echo BEGIN\n' "${globals[@]}"
	'set print pretty on' "${globals[@]}" 'echo END\n')
gdb_batch -- "$TESTPROGS/stlprint" | norm | sed -n '/^BEGIN$/,/^END$/p' >"$TMPDIR/gdb.past.sec"
[ "$(wc -l <"$TMPDIR/gdb.past.sec")" -gt 10 ] || die "gdb did not get past change()"
fill_line=$(line_of stlprint.cc '	fill();')
sed -n '/^BEGIN$/q;p' "$TMPDIR/ptdbg.past" | tail -n 1 | qgrep -x "${fill_line#*:}		fill();" || {
	cat "$TMPDIR/ptdbg.past" >&2
	die "reverse-next did not go back before fill()"
}
diff -u "$TMPDIR/gdb.past.sec" "$TMPDIR/ptdbg.past.sec" >&2 ||
	die "in the past the containers differ from the present memory's (- gdb live, + ptdbg in the past)"
qgrep '^warning: memory is shown as it is now' "$TMPDIR/ptdbg.past" ||
	die "no present-memory note in the past"
note "$(cat "$TMPDIR"/ptdbg.live "$TMPDIR"/ptdbg.frames "$TMPDIR"/ptdbg.corrupt | wc -l) lines identical to gdb's"
exit 0
