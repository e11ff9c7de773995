#!/usr/bin/env bash
# longjmp and C++ exception unwinding are returns to the frame they land
# in (issue 14): after the jump, bt shows the landing frame and its
# callers only, reverse-finish goes back to that frame's caller, and back
# across the landing the thrower's frames are there again (once the code
# that jumps is back on the thrower's stack) -- without the
# PLT stub and dynamic-linker frames that jumped on to longjmp (a stack
# unwinder never sees them), with each PLT frame named by its own pc.
# Compared with gdb 13 record full on testprogs/unwind (setjmp/longjmp
# through the lazily bound longjmp@plt) and testprogs/throw (throw/catch).
# Frames are compared as frames.bash's norm_frames prints them.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs unwind throw
need_gdb
# gdb record full cannot record AVX-512 instructions (libc's string
# functions, which the C++ unwinder uses): both debuggers run the program
# with the baseline implementations.
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX2,-AVX,-EVEX

U=unwind.c
start=$(line_of $U 'rc = setjmp(env);')
after=$(line_of $U 'depth += 10;')
jump=$(line_of $U 'longjmp(env, v);')

# After the longjmp: catcher and main (not siglongjmp, the resolver, the
# PLT and the thrower's frames); reverse-finish runs back to the start of
# the history (catcher's call predates it), as gdb's does.
CMDS=("break $start" run "record full" "break $after" continue "echo @@ landed\n" bt
      reverse-finish "echo @@ reverse-finish\n" bt)
compare_frames landed unwind

# Back across the landing into __longjmp: once it has switched to the
# landing frame's stack (its CFA from %rdi, the jmp_buf), the caller is
# catcher at the landing; before that, siglongjmp and the throwers.
CMDS=("break $start" run "record full" "break $after" continue reverse-step)
for i in $(seq 1 12); do CMDS+=(reverse-stepi "echo @@ reverse-stepi $i\n" bt); done
compare_frames across unwind

# Back at the longjmp call in the innermost thrower, then stepping
# forward into longjmp@plt, PLT0, the resolver and siglongjmp: the
# thrower's four frames, catcher and main below the innermost.
CMDS=("break $start" run "record full" "break $after" continue "break $jump"
      reverse-continue "echo @@ at the longjmp call\n" bt)
for i in $(seq 1 12); do CMDS+=(stepi "echo @@ stepi $i\n" bt); done
compare_frames thrower unwind

# reverse-step at the landing goes back into __longjmp; reverse-finish
# from siglongjmp (reached from longjmp@plt through the resolver) goes
# back to the call in thrower.
CMDS=("break $start" run "record full" "break $after" continue "break $jump"
      reverse-continue delete)
for i in $(seq 1 12); do CMDS+=(stepi); done
CMDS+=("echo @@ in the resolver\n" bt reverse-finish "echo @@ reverse-finish\n" bt)
compare_frames resolver unwind

# reverse-finish in PLT0, which has no symbol: gdb cannot find the
# function's bounds and stays.
CMDS=("break $start" run "record full" "break $after" continue "break $jump"
      reverse-continue delete)
for i in $(seq 1 8); do CMDS+=(stepi); done
CMDS+=("echo @@ in PLT0\n" bt reverse-finish "echo @@ reverse-finish refused\n" bt)
compare_frames plt0 unwind
grep -q '^Cannot find bounds of current function' "$TMPDIR/plt0.ptdbg" ||
	die "reverse-finish in PLT0 was not refused: $(cat "$TMPDIR/plt0.ptdbg")"

# C++: the unwinder's jump into catcher's landing pad.
T=throw.cc
CMDS=("break $(line_of $T 'int rc = 0;')" run "record full" "break $(line_of $T 'rc = e;')"
      continue "echo @@ caught\n" bt reverse-stepi "echo @@ back in the unwinder\n" bt
      reverse-stepi "echo @@ unwinder 2\n" bt reverse-stepi "echo @@ unwinder 3\n" bt
      reverse-stepi "echo @@ unwinder 4\n" bt reverse-finish "echo @@ reverse-finish to __cxa_throw\n" bt)
compare_frames throw throw
exit 0
