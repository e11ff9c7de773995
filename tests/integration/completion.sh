#!/usr/bin/env bash
# Tab completion (readline, on a terminal): ptdbg gets a pseudo-terminal
# and keystrokes with TABs; each line only works when the TAB completed
# it, so the command's own output is the check:
#   command names ("adv" -> advance via help), info subcommands
#   ("info sha" -> sharedlibrary), signal names ("SIGSEG" -> SIGSEGV),
#   settings ("set breakpoint pen" -> pending, "of" -> off; "set print
#   fr" -> frame-arguments, "no" -> none), symbols
#   ("break fi" -> fib), handle's words ("nost" -> nostop) and file names
#   (source DIR/scr -> the script), user commands (zzus -> zzuser).
. "$(dirname "$0")/lib.bash"
need_prereqs fib
command -v python3 >/dev/null || die "python3 is needed to give ptdbg a terminal"
mkdir -p "$TMPDIR/cdir"
printf 'echo SCRIPT-RAN\\n\n' >"$TMPDIR/cdir/script-for-completion.gdb"

out=$(python3 - "$PTDBG" "$TESTPROGS/fib" "$TMPDIR/cdir" <<'PY'
import os, pty, re, subprocess, sys
ptdbg, prog, d = sys.argv[1:4]
keys = ("help adv\t\n"
        "info sha\t\n"
        "info sig\tSIGSEG\t\n"
        "set breakpoint pen\tof\t\n"
        "show breakpoint pen\t\n"
        "break fi\t\n"
        "handle SIGUSR2 nost\t\n"
        "source " + d + "/scr\t\n"
        "set conf\tof\t\n"
        "set print fr\tno\t\n"
        "show print fr\t\n"
        "with print pre\tof\t-- show print pretty\n"
        "w lists\t7 -- show listsize\n"
        "info sco\tfi\t\n"
        "tty " + d + "/scr\t\n"
        "show inferior-t\t\n"
        "define zzuser\necho $arg0-RAN\\n\nend\nzzus\tZZUSER\n"
        "quit\n")
master, slave = pty.openpty()
p = subprocess.Popen([ptdbg, "-nx", prog], stdin=slave, stdout=slave, stderr=slave,
                     close_fds=True)
os.close(slave)
os.write(master, keys.encode())
data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
p.wait()
text = data.decode("utf-8", "replace").replace("\r", "")
# readline's terminal controls (bracketed paste on/off) are not output
sys.stdout.write(re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", text))
sys.exit(p.returncode)
PY
) || die "ptdbg on a terminal failed: $out"
note "$out"
check() { echo "$out" | qgrep -- "$1" || die "completion: $2 (no '$1' in the output)"; }
check '^advance -- ' "help adv<TAB> is not advance"
check '^No shared libraries loaded at this time.' "info sha<TAB> is not info sharedlibrary"
check '^SIGSEGV       Yes' "info sig<TAB>SIGSEG<TAB> is not info signals SIGSEGV"
check "pending breakpoints is off" "set breakpoint pen<TAB>of<TAB> did not set it off"
check '^Breakpoint 1 at 0x[0-9a-f]*: file fib.c, line ' "break fi<TAB> is not break fib"
check '^SIGUSR2       No' "handle SIGUSR2 nost<TAB> is not nostop"
check '^SCRIPT-RAN' "source DIR/scr<TAB> did not complete the file name"
check '^Printing of non-scalar frame arguments is "none".' \
	"set print fr<TAB>no<TAB> did not set print frame-arguments none"
check '^Pretty formatting of structures is off\.$' "with print pre<TAB>of<TAB> is not with print pretty off"
check '^Number of source lines gdb will list by default is 7\.$' "w lists<TAB> is not with listsize"
check '^Scope for fib:$' "info sco<TAB>fi<TAB> is not info scope fib"
check '^Terminal for future runs of program being debugged is ".*/cdir/script-for-completion.gdb"\.$' \
	"tty DIR/scr<TAB> did not complete the file name, or show inferior-t<TAB> is not show inferior-tty"
check '^ZZUSER-RAN' "zzus<TAB>ZZUSER did not complete the user command zzuser"
exit 0
