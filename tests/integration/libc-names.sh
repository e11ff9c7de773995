#!/usr/bin/env bash
# Code is named as gdb 13 names it (issue 14): by the DWARF function
# holding it, with its linkage name (libc's __GI_raise, __GI_abort,
# __GI__IO_puts, __libc_start_main_impl), of an assembly file's aliases at
# one address the one gdb's block lookup finds (__memcpy_avx_unaligned_
# erms, ld.so's memcpy), and by the ELF symbol gdb's minimal symbols pick
# where there is no DWARF.  x/i on several libc and ld.so functions and
# at an offset into them, compared with gdb (address and <symbol+off>);
# every alias still names its function for break and x.  info symbol
# gives the ELF symbol as gdb's does.
. "$(dirname "$0")/lib.bash"
need_prereqs abort
need_gdb

CMDS=("break main" run)
for f in raise gsignal abort printf _IO_printf puts malloc __libc_malloc memcpy memmove strlen \
	__libc_start_call_main __libc_start_main __memmove_avx_unaligned_erms \
	__memcpy_avx_unaligned_erms _exit exit; do
	CMDS+=("echo @@ $f\n" "x/i $f" "x/i $f+4")
done
g=$(gdb_batch -- "$TESTPROGS/abort")
p=$(ptdbg_batch -- "$TESTPROGS/abort") || die "ptdbg failed: $p"
# the markers and each x/i line's address and symbol
pick() { sed -n -E '/^@@ /p; s/^(=> |   )(0x[0-9a-f]+ <[^>]*>):.*/\2/p'; }
pick <<<"$g" >"$TMPDIR/gdb"
pick <<<"$p" >"$TMPDIR/ptdbg"
[ "$(grep -c '^0x' "$TMPDIR/gdb")" -eq 34 ] || die "gdb did not disassemble every function: $g"
diff -u "$TMPDIR/gdb" "$TMPDIR/ptdbg" >&2 || die "symbols differ from gdb's (--- gdb, +++ ptdbg)"
# (the DWARF names are there, not the ELF ones)
qgrep -x '0x[0-9a-f]* <__GI_raise>' "$TMPDIR/ptdbg" || die "raise is not named __GI_raise"
note "ok: $(grep -c '^0x' "$TMPDIR/ptdbg") addresses named as gdb names them"

# info symbol: the ELF symbol gdb's minimal symbols pick ("raise", not
# the DWARF "__GI_raise"), its section and object, before and after run
CMDS=("info symbol main")
for a in "break main" run main+4 raise raise+4 gsignal malloc puts printf memcpy __libc_start_main \
	__memcpy_avx_unaligned_erms+4 _exit exit strlen __libc_start_call_main 0 '$sp'; do
	case $a in "break main" | run) CMDS+=("$a") ;; *) CMDS+=("info symbol $a") ;; esac
done
pick() { grep -E ' in section |^No symbol matches '; }
gdb_batch -- "$TESTPROGS/abort" | pick >"$TMPDIR/gdb.is"
ptdbg_batch -- "$TESTPROGS/abort" | pick >"$TMPDIR/ptdbg.is"
[ "$(wc -l <"$TMPDIR/gdb.is")" -eq 17 ] || die "gdb answered $(wc -l <"$TMPDIR/gdb.is") of 17 info symbol"
diff -u "$TMPDIR/gdb.is" "$TMPDIR/ptdbg.is" >&2 || die "info symbol differs from gdb's (--- gdb, +++ ptdbg)"
qgrep -x 'raise in section .text of /lib/x86_64-linux-gnu/libc.so.6' "$TMPDIR/ptdbg.is" ||
	die "info symbol raise: $(cat "$TMPDIR/ptdbg.is")"
note "ok: info symbol as gdb's, $(wc -l <"$TMPDIR/ptdbg.is") addresses"
exit 0
