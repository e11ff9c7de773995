/*
 * PT synthesis: turns a sequence of branch outcomes into the Intel PT packet
 * stream that hardware writes when tracing user mode only (RTIT_CTL.User=1,
 * OS=0, BranchEn=1), encoded with libipt's packet encoder.
 *
 * The caller (the step recorder, the soft recorder, tests) reports what the
 * traced thread did, in execution order; the synthesizer decides packets:
 *
 *   outcome                          packets
 *   begin(ip)                        [PSB, (TSC), MODE.Exec, PSBEND]  MODE.Exec (TSC) TIP.PGE(ip)
 *   cond(taken, next_ip)             one TNT bit (packed into TNT-8 / TNT-64)
 *   call(ret_addr)                   none (direct call; pushes the return stack)
 *   icall(ret_addr, target)          TIP(target) (indirect call; pushes)
 *   indirect(target)                 TIP(target) (indirect jmp)
 *   ret(target)                      TNT bit 1 when compressible, else TIP(target)
 *   syscall(resume_ip)               TIP.PGD(suppressed) then MODE.Exec TIP.PGE(resume_ip)
 *   async(from_ip, target)           FUP(from) TIP.PGD(suppressed) MODE.Exec TIP.PGE(target)
 *   overflow(resume_ip)              OVF FUP(resume_ip)
 *   end(ip)                          FUP(ip) TIP.PGD(suppressed)
 *   leave(target)                    TIP.PGD(target) (IP filtering: a branch out of range)
 *   enter(ip)                        [PSB+]  MODE.Exec (TSC) TIP.PGE(ip) (back in range)
 *
 * Pending TNT bits are flushed before every TIP/FUP/OVF/PSB, as hardware
 * does.  A PSB+ (PSB, (TSC), MODE.Exec, FUP(current ip), PSBEND) is written
 * after an outcome once psb_period bytes were written since the last one;
 * the "current ip" is the ip that outcome leads to, which is why cond()
 * takes next_ip.  IPs are compressed against the last IP like hardware
 * (update-16/32, sext-48, update-48, full); the last IP resets at PSB and is
 * treated as unknown after OVF.
 *
 * Return compression mirrors libipt's decoder model exactly: every near call
 * pushes its return address on a 64-entry circular stack; a ret whose target
 * equals the top is a taken TNT bit and pops; any other ret is a TIP and
 * does not pop.  The stack is cleared at PSB, OVF and when tracing stops,
 * so a compressed ret never depends on state the decoder may have dropped.
 * With ret_compression off (RTIT_CTL.DisRETC) every ret is a TIP.
 *
 * Not thread safe; one synthesizer per traced thread.
 */
#ifndef PTD_RECORD_PTSYNTH_H
#define PTD_RECORD_PTSYNTH_H

#include <stddef.h>
#include <stdint.h>

struct ptd_ptsynth_config {
	/* Bytes between PSB+ sequences (hardware: 2K..64K, RTIT_CTL.PSBFreq);
	 * 0 means 4096.  A PSB+ is written at the first outcome after the
	 * period elapsed, so actual distances are slightly larger. */
	uint32_t psb_period;
	/* Non-zero: compress returns into TNT (the hardware default). */
	int ret_compression;
	/* Non-zero: write TSC packets in PSB+ and at each TIP.PGE. */
	int tsc;
	/* Non-zero: pack up to 47 TNT bits in TNT-64 packets; zero: TNT-8
	 * only (up to 6 bits), as most hardware writes. */
	int tnt64;
	/* Non-zero: begin() always writes a PSB+ first, so the bytes from each
	 * begin() to the following end() (what ptd_ptsynth_take returns at a
	 * stop) decode on their own, e.g. each with the process image of its
	 * own time (exec, dlclose) and without re-decoding older bytes. */
	int psb_on_begin;
	/* MODE.Exec of every packet: 0 64-bit code, 1 32-bit, 2 16-bit
	 * (enum ptd_exec_mode). */
	uint8_t exec_mode;
	/* Non-zero: a PSB+ due when enter() re-enables tracing carries the
	 * FUP of the ip tracing resumes at and is directly followed by
	 * TIP.PGE, as hardware writes it when the PSB falls on the enable;
	 * zero: it is written without FUP (tracing still off). */
	int fup_pge;
	/* The cpu the trace claims to come from (0: family 6 model 0x8e). */
	uint16_t family;
	uint8_t model;
	uint8_t stepping;
};

struct ptd_ptsynth;

/* Returns a new synthesizer with an empty output buffer, or NULL with the
 * error message set.  @cfg may be NULL for the defaults (4K period, ret
 * compression on, no TSC, TNT-8 only). */
struct ptd_ptsynth *ptd_ptsynth_alloc(const struct ptd_ptsynth_config *cfg);
void ptd_ptsynth_free(struct ptd_ptsynth *s);

/*
 * Outcome calls.  Each returns 0 or a negative ptd_error:
 * -ptde_invalid for a NULL synthesizer or an outcome that cannot happen
 * in the current state (a branch while tracing is disabled, begin while
 * enabled, a zero ip), -ptde_nomem, -ptde_internal when libipt refuses a
 * packet.  After an error the stream is unchanged.
 */
int ptd_ptsynth_begin(struct ptd_ptsynth *s, uint64_t ip);
int ptd_ptsynth_cond(struct ptd_ptsynth *s, int taken, uint64_t next_ip);
int ptd_ptsynth_call(struct ptd_ptsynth *s, uint64_t ret_addr);
int ptd_ptsynth_icall(struct ptd_ptsynth *s, uint64_t ret_addr, uint64_t target);
int ptd_ptsynth_indirect(struct ptd_ptsynth *s, uint64_t target);
int ptd_ptsynth_ret(struct ptd_ptsynth *s, uint64_t target);
/* A syscall (or other far transfer into the kernel) executed; user code
 * resumed at @resume_ip (the next instruction, a signal handler, the
 * sigreturn target, ...).  @resume_ip 0: tracing stays disabled (exit, or
 * the recording stops inside the syscall); call begin() to resume. */
int ptd_ptsynth_syscall(struct ptd_ptsynth *s, uint64_t resume_ip);
/* An asynchronous transfer (signal delivery, interrupt) before executing
 * the instruction at @from_ip; user code resumed at @target. */
int ptd_ptsynth_async(struct ptd_ptsynth *s, uint64_t from_ip, uint64_t target);
/*
 * IP filtering (RTIT_ADDRn ranges): a branch (a call, jump or return) took
 * execution out of the traced range to @target: TIP.PGD with @target,
 * tracing off until enter().  For a direct call or jump this replaces
 * call(); for an indirect one or a ret, the TIP.
 */
int ptd_ptsynth_leave(struct ptd_ptsynth *s, uint64_t target);
/* Execution came back into the traced range at @ip (e.g. the return
 * address of the call that left it): TIP.PGE, after a PSB+ when one is
 * due (see fup_pge). */
int ptd_ptsynth_enter(struct ptd_ptsynth *s, uint64_t ip);
/* Trace data was lost; tracing resumes at @resume_ip. */
int ptd_ptsynth_overflow(struct ptd_ptsynth *s, uint64_t resume_ip);
/* Tracing stops before the instruction at @ip (the thread stopped there).
 * A no-op when tracing is already disabled. */
int ptd_ptsynth_end(struct ptd_ptsynth *s, uint64_t ip);
struct ptd_insn_info;
/*
 * Convenience for single-stepping recorders: @insn (ptd_disasm_decode of
 * the instruction just executed, at insn->ip) completed and the thread is
 * now at @next_ip.  Picks the outcome call from the instruction class:
 * jcc -> cond; direct call -> call; indirect call -> icall; ret -> ret;
 * indirect jmp, far jmp/ret -> indirect; syscall, int n, int3 (far call)
 * -> syscall(next_ip); direct jmp and other instructions -> nothing.  A
 * rep-string iteration (next_ip == insn->ip) is nothing too: PT does not
 * record iterations, so a decoded history lists such an instruction once.
 * Signals are not instructions: report them with ptd_ptsynth_async (or
 * as the resume ip of ptd_ptsynth_syscall).  Returns as the call made.
 */
int ptd_ptsynth_step(struct ptd_ptsynth *s, const struct ptd_insn_info *insn, uint64_t next_ip);
/* Sets the time stamp for the next TSC packet (otherwise a counter that
 * grows by one per outcome). */
void ptd_ptsynth_set_tsc(struct ptd_ptsynth *s, uint64_t tsc);

/* The bytes written so far (valid until the next call). */
const uint8_t *ptd_ptsynth_data(const struct ptd_ptsynth *s, size_t *size);
/* Flushes pending TNT bits (as before a stop) so the data is complete. */
int ptd_ptsynth_flush(struct ptd_ptsynth *s);
/* Transfers the buffer to the caller (free() it); the synthesizer keeps
 * its state and continues with an empty buffer.  Returns NULL if empty. */
uint8_t *ptd_ptsynth_take(struct ptd_ptsynth *s, size_t *size);
/* Non-zero while tracing is enabled (between begin/PGE and PGD). */
int ptd_ptsynth_enabled(const struct ptd_ptsynth *s);
/* The cpu written into bundles for this trace. */
void ptd_ptsynth_cpu(const struct ptd_ptsynth *s, uint16_t *family, uint8_t *model,
		     uint8_t *stepping);

#endif
