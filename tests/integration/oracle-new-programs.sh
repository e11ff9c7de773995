#!/usr/bin/env bash
# Oracles (b) and (c) on programs written the way applications are, -O0
# and -O2: callbacks from libc (qsort, bsearch) with a variadic function
# and a VLA (libcb), a mutually recursive parser whose evaluate ends in a
# tail jump (parse), a computed-goto interpreter (vm), a signal handler
# that siglongjmps out (sigjmp), a swapcontext coroutine (ucoro) and C++
# with virtual calls, templates, lambdas and std::function (lambdas).
# The instruction history of every span must be gdb record full's, and
# the motions must land where gdb's do, with every recording method
# (the -O0 builds only where they differ in kind from the -O2 ones, to
# keep the test short).
#
# What these caught: reverse-step back to the start of an inlined call
# (parse-O2's skip_spaces) stepping on as if still in the inline frame;
# PLT entries of libc named in the wrong order, its .plt.got entries
# (free@plt) not named and so not stepped through; reverse-finish from a
# function reached by a tail jump going past the jump (parse-O2's
# evaluate); reverse-step from a longjmp landing stepping over the frames
# the jump unwound (sigjmp-O2).
#
# Left out, as gdb 13 differs from itself there: stepping back out of a
# signal handler (record full logs entries at the interrupted pc before
# the handler, where a branch trace has none), reverse-finish back
# through libc's ifunc PLT entries (gdb's step-resume breakpoint goes to
# the entry's first instruction, where it already is, and it runs back to
# an earlier call), reverse-step back through __cxa_free_exception's jump
# to free (gdb's breakpoint at the caller of a function without a name
# is never reached backward: it runs to the start of the history), and
# stepping across swapcontext (gdb unwinds by the stack, a branch trace
# has no stack pointer: ptdbg sees the coroutine's switches as calls).
. "$(dirname "$0")/lib.bash"

need_prereqs libcb libcb-O2 parse parse-O2 vm-O2 sigjmp sigjmp-O2 ucoro-O2 lambdas lambdas-O2
need_gdb
# gdb record full cannot record AVX instructions (libc's string
# functions): both debuggers run the programs with the SSE2 ones.
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX2,-AVX,-EVEX,-RTM,-AVX_Fast_Unaligned_Load,-ERMS
rep() { local i out=""; for ((i = 0; i < $2; i++)); do out+="$1;"; done; printf '%s' "$out"; }

failed=0
found=$(line_of libcb.c 'printf("found')
parsed=$(line_of parse.c 'printf("%s = %d')
summed=$(line_of vm.c 'printf("sum of squares')
jumped=$(line_of sigjmp.c 'printf("a=%d')
yielded=$(line_of ucoro.c 'printf("sum=')
folds=$(line_of lambdas.cc 'total = fold(v')
throws=$(line_of lambdas.cc 'total += checked(v, 30)')
# program | first breakpoint | second breakpoint | continues to reach it
# (sigjmp stops twice for SIGUSR1 on the way) | args | only
spans=("libcb|main|$found|1|" "libcb-O2|main|$found|1|" "parse-O2|evaluate|$parsed|1|"
	"vm-O2|run|$summed|1|" "sigjmp|main|$jumped|3|" "sigjmp-O2|main|$jumped|3|"
	"ucoro-O2|consume|$yielded|1|" "lambdas|$folds|$throws|1|" "lambdas-O2|$folds|$throws|1|")
insn_oracle "${spans[@]}" || failed=1

# reverse-step back into the inlined skip_spaces and out of it
motion_oracle parse-O2 evaluate "$parsed" \
	"$(rep reverse-step 30)reverse-finish;reverse-finish;$(rep reverse-next 6)$(rep reverse-step 20)$(rep step 15)finish;finish;$(rep next 5)$(rep reverse-step 10)reverse-finish" || failed=1
# reverse-finish from expr, which evaluate jumped to: onto the jump
for p in parse parse-O2; do
	motion_oracle $p evaluate factor \
		"$(rep reverse-finish 3)reverse-step;$(rep step 3)reverse-finish;reverse-next;next" || failed=1
done
# back through free@plt (.plt.got) and into memcpy, from by_key through qsort
motion_oracle libcb-O2 main "$found" \
	"$(rep reverse-step 12)reverse-finish;$(rep reverse-next 4)$(rep reverse-step 20)$(rep step 6)" || failed=1
motion_oracle libcb main "$found" \
	"$(rep reverse-step 12)reverse-finish;$(rep reverse-next 4)$(rep reverse-step 20)reverse-finish;$(rep reverse-next 3)$(rep reverse-step 25)$(rep step 6)finish;$(rep next 4)$(rep reverse-next 6)" || failed=1
motion_oracle vm-O2 run "$summed" \
	"$(rep reverse-step 23)reverse-finish;$(rep reverse-next 10)$(rep reverse-step 8)$(rep step 12)finish;$(rep reverse-next 6)" || failed=1
# from the landing of siglongjmp back into __longjmp, the mask restored
for p in sigjmp sigjmp-O2; do
	NCONT=3 motion_oracle $p main "$jumped" \
		"$(rep reverse-step 25)reverse-finish;$(rep reverse-next 3)$(rep step 8)finish;$(rep next 3)" || failed=1
done
motion_oracle ucoro-O2 consume "$yielded" \
	"$(rep reverse-step 25)reverse-finish;$(rep reverse-next 4)" || failed=1
for p in lambdas lambdas-O2; do
	motion_oracle $p "$folds" "$throws" \
		"$(rep reverse-step 20)reverse-finish;reverse-finish;$(rep reverse-next 4)$(rep step 12)finish;$(rep next 4)$(rep reverse-step 6)" || failed=1
done
[ "$failed" = 0 ] || die "ptdbg differs from gdb record full on the new programs"
