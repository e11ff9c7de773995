#!/usr/bin/env bash
# Watchpoints on expressions that read other values on the way, against
# gdb 13 on testprogs/watchidx and testprogs/watchptr: gdb watches every
# value the expression reads with the debug registers, so
#  - `watch a[i]` also stops when i changes and the element it now names
#    holds another value (Old/New value), then follows the new element;
#    `watch p->next->val` likewise when p or p->next move, and shows
#    "<unreadable>" once p->next is NULL;
#  - `rwatch`/`awatch` on such expressions (a[i], p->next->val, *ptr)
#    watch those values too (accesses to i or ptr stop), and report as
#    gdb does: once per watched place, the first report of an access
#    watchpoint with the change (Old/New value), a read watchpoint
#    without the report that saw a change (x86 has no read-only trap);
#    the hit counts of info watchpoints follow;
#  - set before `run` (globals read from the program file, .bss as
#    zeros), they are set in the program when it starts and fire;
#    a local before run gets gdb's "No symbol" message;
#  - a[k] with a local index ends with its frame, and is evaluated again
#    in its frame when a callee moves the index; a watchpoint on a
#    local is deleted when the program is run again; watchpoints on one
#    frame share the register of its end;
#  - `watch -l a[i]` (-location) watches the element only; `watch EXPR
#    if COND` sets the condition;
#  - an expression that cannot be evaluated when set (p->next->next->val
#    while p->next is NULL) is set on the values read before the fault
#    and fires once it can be read;
#  - the debug-register budget: a watchpoint needing more registers than
#    are left is refused with ptdbg's message (gdb accepts it and then
#    fails at every resume), and the ones set keep working.
. "$(dirname "$0")/lib.bash"
need_prereqs watchidx watchptr watchexpr
need_gdb

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1'
}

# compare WHAT PROG: ptdbg and gdb on CMDS, the output on stdout
compare() {
	local what=$1 prog=$TESTPROGS/$2 pt gd
	pt=$(ptdbg_batch -- "$prog" | clean)
	[ $? -le 1 ] || die "ptdbg crashed ($what)"
	gd=$(gdb_batch -- "$prog" | clean)
	note "ptdbg ($what):"; note "$pt"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb (--- gdb, +++ ptdbg)"
	printf '%s\n' "$pt"
}
# count PATTERN TEXT: lines matching
count() { grep -c -e "$1" <<<"$2"; }

CMDS=("break main" run "watch a[i]" c c c c c c "info watchpoints")
out=$(compare "watch a[i]" watchidx) || exit 1
# i = 3 moves the watchpoint from a[1] (8) to a[3] (4); a[0] = 7 after
# i = 1 is not a write of a[i]
grep -qx 'Old value = 8' <<<"$out" && grep -qx 'New value = 4' <<<"$out" ||
	die "changing i did not trigger a[i]: $out"
grep -qx 'New value = 7' <<<"$out" && die "a[0] was still watched after i moved: $out"
[ "$(count '^Hardware watchpoint 2: a\[i\]' "$out")" = 6 ] || die "a[i] did not stop 5 times: $out"

CMDS=("break main" run "watch p->next->val" c c c c c c "info watchpoints")
out=$(compare "watch p->next->val" watchidx) || exit 1
# n1.next = &n3 moves it (30), n2.val = 22 then passes, p = &n3 makes it
# unreadable, n3.next = &n2 readable again
vals=$(sed -n 's/^New value = //p' <<<"$out" | paste -sd' ')
[ "$vals" = "21 30 31 <unreadable> 22" ] || die "p->next->val changes: $vals"

CMDS=("break main" run "rwatch a[i]" c c c c c c c c c c "info watchpoints")
out=$(compare "rwatch a[i]" watchidx) || exit 1
grep -qx '	breakpoint already hit 11 times' <<<"$out" || die "rwatch a[i]: not gdb's 11 hits: $out"

CMDS=("break main" run "awatch p->next->val" c c c c c c c c c c c "info watchpoints")
out=$(compare "awatch p->next->val" watchidx) || exit 1
# three places: each stop reports three times, the first with the change
[ "$(count '^Old value = ' "$out")" = 4 ] || die "awatch: not 4 changes: $out"
grep -qx 'New value = <unreadable>' <<<"$out" || die "awatch: no <unreadable>: $out"

CMDS=("break main" run "rwatch *ptr" c c c c c c c c "info watchpoints")
out=$(compare "rwatch *ptr" watchptr) || exit 1
grep -qx '	breakpoint already hit 8 times' <<<"$out" || die "rwatch *ptr: not gdb's 8 hits: $out"
CMDS=("break main" run "awatch *ptr" c c c c c c c c c "info watchpoints")
out=$(compare "awatch *ptr" watchptr) || exit 1
grep -qx 'New value = 6' <<<"$out" || die "awatch *ptr: no change reported: $out"

# gdb's -location: the place a[i] names now, i is not watched
CMDS=("break main" run "watch -l a[i]" "rwatch -location p->next->val" c c c "info watchpoints")
out=$(compare "watch -location" watchidx) || exit 1
grep -qx 'New value = 7' <<<"$out" || die "watch -l a[i] did not stay on a[0]: $out"

# watch EXPR if COND: the condition of a watchpoint, as gdb's
CMDS=("break main" run "watch a[i] if a[i] > 6" c c "info watchpoints")
out=$(compare "watch if" watchidx) || exit 1
grep -qx '	stop only if a\[i\] > 6' <<<"$out" || die "watch ... if: no condition: $out"

# an expression that cannot be evaluated yet (p->next is NULL, so
# p->next->next faults): set anyway on what it read, <unreadable> until
# n3.next is set; gdb watches the place whose read failed too
line=$(line_of watchidx.c 'n3.next = &n2;')
CMDS=("break $line" run "watch p->next->next->val" "info watchpoints" c c "info watchpoints")
out=$(compare "watch p->next->next->val while unreadable" watchidx) || exit 1
grep -qx 'Old value = <unreadable>' <<<"$out" && grep -qx 'New value = 32' <<<"$out" ||
	die "the unreadable expression did not fire when it became readable: $out"
CMDS=("break $line" run delete "awatch p->next->next->val" c c c c "info watchpoints")
out=$(compare "awatch p->next->next->val while unreadable" watchidx) || exit 1
grep -qx '	breakpoint already hit 7 times' <<<"$out" || die "awatch: not gdb's 7 hits: $out"

# before run
CMDS=("watch a[i]" "watch sink" "info watchpoints" run c c c c "info watchpoints")
out=$(compare "watch a[i] and sink before run" watchidx) || exit 1
grep -qx 'New value = 5' <<<"$out" || die "a[i] set before run did not fire: $out"
CMDS=("awatch p->next->val" run c c c c c c "info watchpoints")
out=$(compare "awatch p->next->val before run" watchidx) || exit 1
grep -qx 'New value = 21' <<<"$out" || die "p->next->val set before run did not fire: $out"
CMDS=("rwatch a[i]" "watch acc" run c c c c c "info watchpoints")
out=$(compare "rwatch a[i] and watch acc before run" watchidx) || exit 1
grep -qx 'No symbol "acc" in current context.' <<<"$out" || die "a local before run: $out"
CMDS=("watch *ptr" "watch head->val" run c c c c c c "info watchpoints")
compare "watch *ptr and head->val before run" watchptr >/dev/null || exit 1

# a watchpoint on a local goes with its program (run again, kill), as
# gdb deletes it: its frame is gone; one on a global stays
CMDS=("break bump" run "watch local" "watch pt.x" run "info watchpoints" c "info watchpoints")
out=$(compare "a local's watchpoint at run again" watchexpr) || exit 1
grep -q '^3 .*pt\.x$' <<<"$out" || die "the global's watchpoint did not stay: $out"
[ "$(count '^2 .*local$' "$out")" = 0 ] || die "the local's watchpoint survived run: $out"

# three watchpoints on one local share the register of its frame's end,
# so they fit in the four as gdb's (which uses a breakpoint there)
CMDS=("break bump" run "watch local" "rwatch local" "awatch local" c c c c c c c c c "info watchpoints")
pt=$(ptdbg_batch -- "$TESTPROGS/watchexpr" | clean | norm_stack)
gd=$(gdb_batch -- "$TESTPROGS/watchexpr" | clean | norm_stack)
note "ptdbg (three on a local):"; note "$pt"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "three watchpoints on a local differ from gdb"

# a local index: the watchpoint ends with sum's frame
CMDS=("break $(line_of watchidx.c 'acc += a[k]')" run "watch a[k]" c c c c "info watchpoints")
out=$(compare "watch a[k] in sum" watchidx) || exit 1
grep -q '^Watchpoint 2 deleted because the program has left the block in' <<<"$out" ||
	die "a[k] did not end with its frame: $out"

# a local index moved by a callee: evaluated again in walk's frame (the
# innermost frame, next_index, has no j), as gdb does
CMDS=("break next_index" run up "watch a[j]" c c "info watchpoints")
pt=$(ptdbg_batch -- "$TESTPROGS/watchidx" | clean | norm_stack)
gd=$(gdb_batch -- "$TESTPROGS/watchidx" | clean | norm_stack)
note "ptdbg (a[j] from an outer frame):"; note "$pt"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "a[j] watched from an outer frame differs from gdb"
grep -qx 'New value = 8' <<<"$pt" || die "moving j in the callee did not trigger a[j]: $pt"
# an access watchpoint there: reported per place, its end too (gdb says
# "Watchpoint 2 deleted" once per place)
CMDS=("break next_index" run up "awatch a[j]" c c c c c c "info watchpoints")
pt=$(ptdbg_batch -- "$TESTPROGS/watchidx" | clean | norm_stack)
gd=$(gdb_batch -- "$TESTPROGS/watchidx" | clean | norm_stack)
note "ptdbg (awatch a[j] from an outer frame):"; note "$pt"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "awatch a[j] from an outer frame differs from gdb"
[ "$(count '^Watchpoint 2 deleted because' "$pt")" = 2 ] || die "not gdb's two deletion reports: $pt"

# the budget: breakpoint 1 is an int3, a[i] takes two debug registers,
# p->next->val three
CMDS=("break main" run "watch a[i]" "watch p->next->val" c c "info watchpoints")
out=$(ptdbg_batch -- "$TESTPROGS/watchidx" 2>&1)
note "ptdbg (budget):"; note "$out"
grep -qx 'Hardware watchpoints used exceeds limit of 4 debug registers.' <<<"$out" ||
	die "a watchpoint beyond the debug registers was not refused: $out"
grep -q '^3 ' <<<"$out" && die "the refused watchpoint stayed: $out"
[ "$(count '^Hardware watchpoint 2: a\[i\]' "$out")" = 3 ] || die "a[i] stopped to work: $out"
# before run nothing is taken yet (as in gdb): the one that does not fit
# when the program starts says so, the others work
CMDS=("watch a[i]" "watch p->next->val" run c "info watchpoints")
out=$(ptdbg_batch -- "$TESTPROGS/watchidx" 2>&1)
note "ptdbg (budget before run):"; note "$out"
grep -qx 'warning: cannot set watchpoint 2 again in the new program' <<<"$out" ||
	die "a watchpoint beyond the debug registers at run was not reported: $out"
grep -qx 'New value = 5' <<<"$out" || die "a[i] set before run did not fire: $out"
exit 0
