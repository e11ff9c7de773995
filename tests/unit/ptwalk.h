/*
 * Test helper shared by test-ptsynth.c, test-decode.c and the decode fuzz
 * target: a small hand-assembled x86-64 program in a buffer (served to the
 * decoder through an image read callback) and a random walker over it.
 *
 * The walker plays the program the way a recorder sees it: for every
 * instruction it records the expected instruction address, and for every
 * branch it picks an outcome (cond taken or not, an indirect target, a
 * signal before an instruction, a signal during a syscall, an overflow) and
 * reports it to the PT synthesizer.  The decoder never executes code, so
 * any outcome is a valid execution as far as PT is concerned; the expected
 * list is the exact instruction sequence the decoder must reproduce.
 */
#ifndef PTD_TEST_PTWALK_H
#define PTD_TEST_PTWALK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "disasm/disasm.h"
#include "record/ptsynth.h"

/* Helpers may go unused in a given test program. */
#define PW_FN static __attribute__((unused))

#define PW_BASE 0x401000ull
#define PW_SIZE 0x100
#define PW_GAP UINT64_MAX

/* Instruction kinds of the program. */
enum pw_kind { PW_N, PW_JCC, PW_CALL, PW_ICALL, PW_JMP, PW_IJMP, PW_RET, PW_SYSCALL };

struct pw_insn {
	uint8_t off, len;
	enum pw_kind kind;
	uint8_t target; /* direct target offset */
};

/*
 * main   00: nop; 01: jnz L1; 03: call f; 08: call *rax; 0a: syscall; 0c: jz main; 0e: jmp *rax
 * L1     30: mov %rax,%rbx; 33: jmp 03
 * L2     40: jnz main; 42: jmp 0e
 * f      60: push %rbp; 61: jnz 68; 63: call f; 68: pop %rbp; 69: ret
 * g      80: nop; 81: jz 85; 83: jmp *rax; 85: ret
 * h      a0: nop; a1: call g; a6: syscall (rt_sigreturn)
 */
static const struct pw_insn pw_prog[] = {
	{ 0x00, 1, PW_N, 0 },	     { 0x01, 2, PW_JCC, 0x30 },	  { 0x03, 5, PW_CALL, 0x60 },
	{ 0x08, 2, PW_ICALL, 0 },    { 0x0a, 2, PW_SYSCALL, 0 },  { 0x0c, 2, PW_JCC, 0x00 },
	{ 0x0e, 2, PW_IJMP, 0 },     { 0x30, 3, PW_N, 0 },	  { 0x33, 2, PW_JMP, 0x03 },
	{ 0x40, 2, PW_JCC, 0x00 },   { 0x42, 2, PW_JMP, 0x0e },	  { 0x60, 1, PW_N, 0 },
	{ 0x61, 2, PW_JCC, 0x68 },   { 0x63, 5, PW_CALL, 0x60 },  { 0x68, 1, PW_N, 0 },
	{ 0x69, 1, PW_RET, 0 },	     { 0x80, 1, PW_N, 0 },	  { 0x81, 2, PW_JCC, 0x85 },
	{ 0x83, 2, PW_IJMP, 0 },     { 0x85, 1, PW_RET, 0 },	  { 0xa0, 1, PW_N, 0 },
	{ 0xa1, 5, PW_CALL, 0x80 },  { 0xa6, 2, PW_SYSCALL, 0 },
};

static uint8_t pw_code[PW_SIZE];

PW_FN void pw_rel8(uint8_t off, uint8_t opc, uint8_t target)
{
	pw_code[off] = opc;
	pw_code[off + 1] = (uint8_t)(int8_t)((int)target - (int)(off + 2));
}

PW_FN void pw_rel32(uint8_t off, uint8_t opc, uint8_t target)
{
	int32_t rel = (int32_t)target - (int32_t)(off + 5);

	pw_code[off] = opc;
	memcpy(&pw_code[off + 1], &rel, 4);
}

PW_FN void pw_init_code(void)
{
	memset(pw_code, 0xf4, sizeof(pw_code)); /* hlt everywhere else */
	pw_code[0x00] = 0x90;
	pw_rel8(0x01, 0x75, 0x30);
	pw_rel32(0x03, 0xe8, 0x60);
	pw_code[0x08] = 0xff, pw_code[0x09] = 0xd0;
	pw_code[0x0a] = 0x0f, pw_code[0x0b] = 0x05;
	pw_rel8(0x0c, 0x74, 0x00);
	pw_code[0x0e] = 0xff, pw_code[0x0f] = 0xe0;
	pw_code[0x30] = 0x48, pw_code[0x31] = 0x89, pw_code[0x32] = 0xc3;
	pw_rel8(0x33, 0xeb, 0x03);
	pw_rel8(0x40, 0x75, 0x00);
	pw_rel8(0x42, 0xeb, 0x0e);
	pw_code[0x60] = 0x55;
	pw_rel8(0x61, 0x75, 0x68);
	pw_rel32(0x63, 0xe8, 0x60);
	pw_code[0x68] = 0x5d;
	pw_code[0x69] = 0xc3;
	pw_code[0x80] = 0x90;
	pw_rel8(0x81, 0x74, 0x85);
	pw_code[0x83] = 0xff, pw_code[0x84] = 0xe0;
	pw_code[0x85] = 0xc3;
	pw_code[0xa0] = 0x90;
	pw_rel32(0xa1, 0xe8, 0x80);
	pw_code[0xa6] = 0x0f, pw_code[0xa7] = 0x05;
}

/* ptd_read_fn over the program buffer. */
PW_FN int pw_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < PW_BASE || addr >= PW_BASE + PW_SIZE)
		return -1;
	if (n > PW_BASE + PW_SIZE - addr)
		n = (size_t)(PW_BASE + PW_SIZE - addr);
	memcpy(buf, pw_code + (addr - PW_BASE), n);
	return (int)n;
}

PW_FN const struct pw_insn *pw_find(uint64_t ip)
{
	size_t i;

	for (i = 0; i < sizeof(pw_prog) / sizeof(pw_prog[0]); i++)
		if (PW_BASE + pw_prog[i].off == ip)
			return &pw_prog[i];
	return NULL;
}

struct pw_opts {
	unsigned seed;
	int steps;     /* instructions to execute */
	int p_signal;  /* per mille: signal before an instruction */
	int p_sigsys;  /* per mille: signal delivered during a syscall */
	int p_ovf;     /* per mille: overflow after a branch outcome */
	int ovf_after; /* >0: one overflow after the first outcome at or after this step */
	int via_step;  /* report instructions through ptd_ptsynth_step (disassembled) */
	int no_end;    /* leave tracing enabled at the end (flush only), as a snapshot */
	int p_filter;  /* per mille: a call goes out of the traced range (IP filtering:
			* TIP.PGD at its target, the callee untraced, TIP.PGE at the
			* return address or, one time in eight, elsewhere) */
};

struct pw_result {
	uint64_t *ips; /* expected instruction addresses; PW_GAP for a gap */
	size_t n, cap;
	int ngaps, nsignals;
	uint64_t end_ip;
};

PW_FN unsigned pw_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

PW_FN void pw_push(struct pw_result *r, uint64_t ip)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->ips = realloc(r->ips, r->cap * sizeof(*r->ips));
	}
	r->ips[r->n++] = ip;
}

/* Runs the walk, feeding @s; returns 0 or the first ptsynth error. */
PW_FN int pw_walk(const struct pw_opts *o, struct ptd_ptsynth *s, struct pw_result *r)
{
	static const uint8_t icall_t[] = { 0x60, 0x80 };
	static const uint8_t ijmp_main_t[] = { 0x00, 0x40 };
	static const uint8_t resume_t[] = { 0x00, 0x30, 0x60, 0x80 };
	uint64_t stack[512], saved[8];
	int sp = 0, nsaved = 0, step, err, depth = 0;
	unsigned rs = o->seed ? o->seed : 1;
	uint64_t ip = PW_BASE;

	memset(r, 0, sizeof(*r));
	err = ptd_ptsynth_begin(s, ip);
	if (err < 0)
		return err;
	for (step = 0; step < o->steps; step++) {
		const struct pw_insn *in = pw_find(ip);
		uint64_t next, target;
		int outcome = 0;

		if (!in)
			return -1000; /* walker bug */
		if (nsaved < 8 && (int)(pw_rand(&rs) % 1000) < o->p_signal) {
			saved[nsaved++] = ip;
			err = ptd_ptsynth_async(s, ip, PW_BASE + 0xa0);
			if (err < 0)
				return err;
			r->nsignals++;
			ip = PW_BASE + 0xa0;
			continue;
		}
		pw_push(r, ip);
		next = ip + in->len;
		switch (in->kind) {
		case PW_N:
			ip = next;
			break;
		case PW_JCC: {
			int taken = pw_rand(&rs) & 1;

			/* f's recursion: jnz 68 not taken recurses; keep it bounded
			 * but deeper than the 64-entry return stack. */
			if (in->off == 0x61)
				taken = depth > 80 ? 1 : (pw_rand(&rs) % 100) < 30;
			ip = taken ? PW_BASE + in->target : next;
			err = o->via_step ? 0 : ptd_ptsynth_cond(s, taken, ip);
			outcome = 1;
			break;
		}
		case PW_CALL:
		case PW_ICALL:
			/* (no random number drawn without p_filter: other walks stay as they were) */
			if (o->p_filter > 0 && !o->via_step &&
			    (int)(pw_rand(&rs) % 1000) < o->p_filter) {
				target = in->kind == PW_CALL ? PW_BASE + in->target
							     : PW_BASE + icall_t[pw_rand(&rs) % 2];
				ip = pw_rand(&rs) % 8 ? next : PW_BASE;
				err = ptd_ptsynth_leave(s, target);
				if (!err)
					err = ptd_ptsynth_enter(s, ip);
				if (ip != next)
					pw_push(r, PW_GAP);
				break;
			}
			if (in->kind == PW_ICALL)
				goto icall;
			if (sp < 512)
				stack[sp++] = next;
			depth++;
			err = o->via_step ? 0 : ptd_ptsynth_call(s, next);
			ip = PW_BASE + in->target;
			break;
		icall:
			target = PW_BASE + icall_t[pw_rand(&rs) % 2];
			if (sp < 512)
				stack[sp++] = next;
			depth++;
			err = o->via_step ? 0 : ptd_ptsynth_icall(s, next, target);
			ip = target;
			outcome = 1;
			break;
		case PW_JMP:
			ip = PW_BASE + in->target;
			break;
		case PW_IJMP:
			if (in->off == 0x0e)
				target = PW_BASE + ijmp_main_t[pw_rand(&rs) % 2];
			else
				target = PW_BASE + icall_t[pw_rand(&rs) % 2];
			err = o->via_step ? 0 : ptd_ptsynth_indirect(s, target);
			ip = target;
			outcome = 1;
			break;
		case PW_RET:
			target = sp ? stack[--sp] : PW_BASE;
			if (depth)
				depth--;
			err = o->via_step ? 0 : ptd_ptsynth_ret(s, target);
			ip = target;
			outcome = 1;
			break;
		case PW_SYSCALL:
			if (in->off == 0xa6 && nsaved) {
				target = saved[--nsaved];
			} else if (nsaved < 8 && (int)(pw_rand(&rs) % 1000) < o->p_sigsys) {
				saved[nsaved++] = next;
				target = PW_BASE + 0xa0;
				r->nsignals++;
			} else {
				target = next;
			}
			err = o->via_step ? 0 : ptd_ptsynth_syscall(s, target);
			ip = target;
			break;
		}
		if (!err && o->via_step) {
			struct ptd_insn_info info;
			uint64_t at = next - in->len;

			if (ptd_disasm_decode(pw_code + (at - PW_BASE), PW_BASE + PW_SIZE - at, at, &info) < 0)
				return -1001;
			err = ptd_ptsynth_step(s, &info, ip);
		}
		if (err < 0)
			return err;
		if (outcome && (((int)(pw_rand(&rs) % 1000) < o->p_ovf) ||
				(o->ovf_after > 0 && step >= o->ovf_after && !r->ngaps))) {
			ip = PW_BASE + resume_t[pw_rand(&rs) % 4];
			err = ptd_ptsynth_overflow(s, ip);
			if (err < 0)
				return err;
			pw_push(r, PW_GAP);
			r->ngaps++;
		}
	}
	r->end_ip = ip;
	return o->no_end ? ptd_ptsynth_flush(s) : ptd_ptsynth_end(s, ip);
}

/* Expands decoded blocks to instruction addresses with the program table. */
PW_FN int pw_expand(struct pw_result *out, uint64_t ip, uint64_t end_ip, uint32_t ninsn)
{
	uint32_t k;

	for (k = 0; k < ninsn; k++) {
		const struct pw_insn *in = pw_find(ip);

		if (!in)
			return -1;
		pw_push(out, ip);
		if (k + 1 == ninsn)
			return ip == end_ip ? 0 : -1;
		ip += in->len;
	}
	return -1;
}

#endif
