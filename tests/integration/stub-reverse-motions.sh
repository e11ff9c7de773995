#!/usr/bin/env bash
# gdb's reverse-step, reverse-next and reverse-finish through ptdbg-server
# (gdb 13's own `record btrace bts` and `record btrace pt` replay over the
# trace the stub serves; and gdb's plain reverse motions over target
# remote, bs/bc, on the stub's soft recording, where gdb unwinds with the
# rsp/rbp the stub derives in the past from the call-frame information)
# land on the same pc and line as the ptdbg shell's
# motions over its own recording, and as gdb 13's native `record full`
# (the oracle), over several spans: recursion (reverse-finish inside fib
# goes back to the most recent entry of fib, whichever call that was, as
# gdb does), loops with calls, indirect calls.
. "$(dirname "$0")/lib.bash"

need_prereqs fib loops funcptr
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"
rep() { local i out=""; for ((i = 0; i < $2; i++)); do out+="$1;"; done; printf '%s' "$out"; }

# "K rsp|rbp OFFSET" for the first N motions of log $1: each value as an
# offset from the live rsp where the span ended (the two runs' stacks may
# sit at different addresses: their environments differ).
motion_regs() {
	local live k=0 line reg val rest n=$2
	live=$(sed -n '/^STOPPED-AT$/,/^@@ /s/^rsp  *\(0x[0-9a-f]*\) .*/\1/p' "$1" | head -n 1)
	[ -n "$live" ] || return 1
	while IFS= read -r line; do
		case $line in
		'@@ '*) k=$((k + 1)) ;;
		'rsp '* | 'rbp '*)
			[ "$k" -ge 1 ] && [ "$k" -le "$n" ] || continue
			read -r reg val rest <<<"$line"
			if [[ $val == 0x* ]]; then echo "$k $reg $((val - live))"; else echo "$k $reg $val"; fi ;;
		esac
	done <"$1"
}
# same_regs ORACLE-LOG STUB-LOG N: every rsp/rbp the stub gave (not
# <unavailable>) in the first N motions is gdb record full's; at least
# some are given.
same_regs() {
	local known
	motion_regs "$1" "$3" >"$1.regs" || return 1
	motion_regs "$2" "$3" | grep -v '<unavailable>' >"$2.regs"
	known=$(wc -l <"$2.regs")
	[ "$known" -ge 6 ] || { note "only $known rsp/rbp values known in the past"; return 1; }
	grep -vxFf "$1.regs" "$2.regs" >&2 && return 1
	note "  $known rsp/rbp values in the past, all as gdb record full's"
	return 0
}

failed=0
span() { # PROG FROM TO 'CMD;CMD...' ARGS...
	local prog=$1 from=$2 to=$3 cmds=$4 a b c fmt ref got log want opts
	local -a motions mcmds
	shift 4
	a=$(bp_addr "$prog" "$from") || exit 1
	b=$(bp_addr "$prog" "$to") || exit 1
	IFS=';' read -r -a motions <<<"$cmds"
	mcmds=(delete)
	for c in "${motions[@]}"; do
		mcmds+=("echo @@ $c\\n" "$c" 'echo @@pc\n' 'p $pc' 'info line *$pc' 'info registers rsp rbp')
	done
	# the oracle: gdb 13 record full
	ref=$TMPDIR/$prog.gdb
	CMDS=("break *$a" run 'record full' 'set record full insn-number-max unlimited'
	      delete "break *$b" continue 'echo STOPPED-AT\n' 'p/x $pc' 'info registers rsp' "${mcmds[@]}")
	LD_BIND_NOW=1 gdb_batch -- "$TESTPROGS/$prog" "$@" >"$ref.log"
	[ "$(stopped_at "$ref.log")" = "$b" ] || { tail -n 20 "$ref.log" >&2; die "gdb did not get from $from to $to in $prog"; }
	motion_summary <"$ref.log" >"$ref"
	# the ptdbg shell
	got=$TMPDIR/$prog.shell
	CMDS=("break *$a" run record delete "break *$b" continue 'echo STOPPED-AT\n' 'p/x $pc' "${mcmds[@]}")
	LD_BIND_NOW=1 ptdbg_batch -- "$TESTPROGS/$prog" "$@" >"$got.log"
	[ "$(stopped_at "$got.log")" = "$b" ] || { tail -n 20 "$got.log" >&2; die "ptdbg did not get from $from to $to in $prog"; }
	motion_summary <"$got.log" >"$got"
	if ! diff -u "$ref" "$got" >&2; then
		note "$prog: the ptdbg shell's motions land elsewhere than gdb record full's (--- gdb, +++ shell)"
		failed=1
	fi
	# gdb's record btrace through the stub; then gdb's own motions over
	# plain target remote (bs, bc) on the stub's soft recording, where gdb
	# unwinds with the rsp/rbp the stub derives in the past
	for fmt in bts pt remote-soft; do
		got=$TMPDIR/$prog.$fmt
		if [ "$fmt" = remote-soft ]; then
			CMDS=("break *$a" continue delete "break *$b" continue)
			opts="--method soft --record"
		else
			CMDS=("break *$a" continue "record btrace $fmt" delete "break *$b" continue)
			opts=""
		fi
		CMDS+=('echo STOPPED-AT\n' 'p/x $pc' 'info registers rsp' "${mcmds[@]}")
		ex=(-ex 'set pagination off' -ex 'set confirm off'
		    -ex "target remote | $SERVER $opts --stdio -- $TESTPROGS/$prog $*")
		for c in "${CMDS[@]}"; do ex+=(-ex "$c"); done
		LD_BIND_NOW=1 gdb -nx -batch "${ex[@]}" >"$got.log" 2>&1
		[ "$(stopped_at "$got.log")" = "$b" ] || { tail -n 20 "$got.log" >&2; die "gdb through the stub did not get from $from to $to in $prog"; }
		motion_summary <"$got.log" >"$got"
		log=$got.log
		want=$ref
		if [ "$fmt" = remote-soft ]; then
			# --record records from the program's first instruction: the
			# motions compare up to where the oracle's span runs out
			awk '/no-history/ { exit } { print }' "$ref" >"$ref.upto"
			awk -v n="$(wc -l <"$ref.upto")" 'NR <= n' "$got" >"$got.upto"
			want=$ref.upto
			got=$got.upto
			[ "$(wc -l <"$want")" -ge 10 ] || die "$prog: too few motions before the history ends"
		fi
		if [ "$fmt" = remote-soft ] && ! same_regs "$ref.log" "$log" "$(wc -l <"$got")"; then
			note "$prog: rsp/rbp the stub gave in the past differ from gdb record full's"
			failed=1
		fi
		if diff -u "$want" "$got" >&2; then
			note "ok $prog ($fmt): $(wc -l <"$got") motions land as gdb record full's and the shell's"
		else
			note "$prog: gdb through the stub ($fmt) lands elsewhere (--- record full, +++ stub)"
			failed=1
		fi
	done
}

# from fib.c:23, two reverse-steps into fib(5), then reverse-finish in
# the recursion (the issue's case), and on
span fib "$(line_of fib.c 'r = fib(n);')" "$(line_of fib.c 'printf(')" \
	"reverse-step;reverse-step;reverse-finish;reverse-next;reverse-finish;$(rep reverse-step 4)reverse-finish;$(rep reverse-next 3)reverse-finish" 5
span loops fill "$(line_of loops.c 'int sum = 0;')" \
	"$(rep reverse-step 4)reverse-finish;$(rep reverse-step 5)$(rep reverse-next 6)reverse-finish"
span funcptr main "$(line_of funcptr.c 'printf(')" \
	"$(rep reverse-step 6)reverse-finish;reverse-finish;$(rep reverse-next 5)"
[ "$failed" = 0 ] || die "reverse motions through the stub, in the shell and in gdb record full differ"
