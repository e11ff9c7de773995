#!/usr/bin/env bash
# handle SIG stop/nostop/print/noprint/pass/nopass, info signals and
# signal SIG against gdb 13 on testprogs/signal (raises SIGUSR1 then
# SIGALRM; its handler counts hits and adds to work, so the program's own
# last line says which signals were delivered):
#  - nostop print: "Program received signal" and the program goes on;
#  - noprint: nothing shown, the signal still delivered (pass);
#  - nopass: the stop happens, continue does not deliver it;
#  - signal 0 continues without the pending signal, signal SIGUSR1 delivers
#    one the program has no handler for (it dies of it);
#  - the tables typed at a prompt (from a pipe, so from_tty as in gdb) and
#    the error messages are gdb's.
. "$(dirname "$0")/lib.bash"
need_prereqs signal fib
need_gdb

# what both print that this test is about
keep() {
	sed -e 's/^(gdb) //g' -e 's/^(ptdbg) //g' |
		grep -E '^(Program |hits=|Signal |SIG[A-Z0-9]+ |Continuing|Breakpoint [0-9]|Unrecognized|Only signals|Use "|Argument required|No symbol|The program is not|\[Inferior 1|The program no longer)' |
		sed -E 's/process [0-9]+/process PID/' | norm_stack
}

compare() {
	local what=$1 prog=$2 pt gd
	# (the last command failing makes -batch exit 1, as in gdb)
	pt=$(ptdbg_batch -- "$TESTPROGS/$prog" | keep)
	[ $? -le 1 ] || die "ptdbg crashed ($what)"
	gd=$(gdb_batch -- "$TESTPROGS/$prog" | keep)
	note "ptdbg ($what):"; note "$pt"
	[ -n "$pt" ] || die "ptdbg printed nothing for $what"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb"
}

CMDS=("handle SIGUSR1 nostop" "handle SIGALRM stop print" run "signal 0" "info signals SIGALRM")
compare "nostop, then signal 0" signal
CMDS=("handle SIGUSR1 noprint" "handle SIGALRM nopass" run c "info signals 14")
compare "noprint and nopass" signal
CMDS=("handle SIGUSR1 nostop noprint" "handle SIGALRM nostop noprint" run)
compare "both nostop" signal
out=$(ptdbg_batch -- "$TESTPROGS/signal")
# work: 6*SIGUSR1 + 6*SIGALRM
echo "$out" | qgrep -x 'hits=2 work=144' || die "a passed signal was not delivered: $out"
CMDS=("handle SIGUSR1 nostop noprint" "handle SIGALRM stop nopass" run c)
out=$(ptdbg_batch -- "$TESTPROGS/signal")
echo "$out" | qgrep -x 'hits=1 work=60' || die "a nopass signal was delivered: $out"
CMDS=("break fib" run "signal SIGUSR1")
compare "signal SIGUSR1" fib
CMDS=("handle SIGFOO stop" "handle 99 stop" "handle" "signal" "info signals SIGNOPE" "info signals 99" "break fib" run "signal SIGNOPE" "signal 99")
compare "errors" fib

# from a pipe commands count as typed (from_tty): handle prints its table
input=$'handle SIGUSR1 nostop noprint\nhandle SIGALRM stop\nhandle 14 nopass\nhandle SIGUSR2 pass\ninfo signals SIGINT\ninfo signals SIGTRAP\ninfo signals SIGCHLD\n'
pt=$(printf '%s' "$input" | "$PTDBG" -nx "$TESTPROGS/signal" 2>&1 | keep)
gd=$(printf '%s' "$input" | gdb -nx "$TESTPROGS/signal" 2>&1 | keep)
note "ptdbg (tables):"; note "$pt"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "handle tables differ from gdb"

# the full table has gdb's defaults for the signals Linux has (gdb also
# lists other systems' signals; SIGSTKFLT is Linux's, gdb has no name).
# SIG32 and SIG33 are glibc's own: gdb turns them to nostop noprint once
# libthread_db is loaded (check_thread_signals), ptdbg has them so always.
pt=$("$PTDBG" -batch -ex 'info signals' 2>&1 | grep -E '^SIG')
gd=$(gdb -nx -batch -ex 'info signals' 2>&1 | grep -E '^SIG')
same=0
while read -r line; do
	name=${line%% *}
	case $name in SIG32|SIG33) continue ;; esac
	g=$(echo "$gd" | grep -E "^$name " | head -n 1)
	[ -n "$g" ] || { note "gdb has no $name"; continue; }
	[ "$g" = "$line" ] || die "info signals row differs: gdb '$g', ptdbg '$line'"
	same=$((same + 1))
done <<<"$pt"
[ "$same" -ge 50 ] || die "info signals: only $same rows are gdb's: $pt"
exit 0
