/*
 * Shared fixture for the history, call-segment and replay unit tests: the
 * machine code of a small -O0 -g -no-pie program (gcc 12 output, bytes from
 * objdump -d), its line table (objdump --dwarf=decodedline) and symbols,
 * placed in a fake memory image, plus a simulator that "executes" the
 * program at block granularity by appending the blocks it would run.
 *
 *   int g(int x) { int y = x * 2; return y + 1; }        lines 2-6
 *   int f(int x) { int r = g(x); r += g(r); return r; }  lines 7-12
 *   int fib(int n) { if (n < 2) return n; return fib(n - 1) + fib(n - 2); }
 *   int main(void) { int a = 1; a = f(a); a += 3; a = h(a); a = fib(4);
 *                    a += f(2); return a - 100; }         lines 19-28
 *   h() comes from an object without debug info.
 *
 * Hand-assembled extras at 0x402000: a signal handler (with lines), a sigreturn
 * trampoline, a PLT-like indirect jump to h, a start stub calling main and
 * a function calling h through the PLT stub.
 */
#ifndef HISTFIX_H
#define HISTFIX_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "disasm/disasm.h"
#include "history/history.h"
#include "replay/replay.h"

#define FX_BASE 0x401106ull
#define FX_G 0x401106ull
#define FX_F 0x40111dull
#define FX_FIB 0x401147ull
#define FX_MAIN 0x401182ull
#define FX_H 0x4011d1ull
#define FX_END 0x4011e0ull
#define FX_HANDLER 0x402000ull
#define FX_RESTORER 0x402010ull
#define FX_PLT 0x402020ull
#define FX_START 0x402030ull
#define FX_TCC 0x402040ull
#define FX_XEND 0x402047ull
#define FX_PIC 0x402050ull

static const uint8_t fx_text[] = {
	/* g 0x401106 */
	0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xec, 0x8b, 0x45, 0xec, 0x01, 0xc0, 0x89, 0x45, 0xfc,
	0x8b, 0x45, 0xfc, 0x83, 0xc0, 0x01, 0x5d, 0xc3,
	/* f 0x40111d */
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x18, 0x89, 0x7d, 0xec, 0x8b, 0x45, 0xec, 0x89,
	0xc7, 0xe8, 0xd4, 0xff, 0xff, 0xff, 0x89, 0x45, 0xfc, 0x8b, 0x45, 0xfc, 0x89, 0xc7, 0xe8,
	0xc7, 0xff, 0xff, 0xff, 0x01, 0x45, 0xfc, 0x8b, 0x45, 0xfc, 0xc9, 0xc3,
	/* fib 0x401147 */
	0x55, 0x48, 0x89, 0xe5, 0x53, 0x48, 0x83, 0xec, 0x18, 0x89, 0x7d, 0xec, 0x83, 0x7d, 0xec,
	0x01, 0x7f, 0x05, 0x8b, 0x45, 0xec, 0xeb, 0x1e, 0x8b, 0x45, 0xec, 0x83, 0xe8, 0x01, 0x89,
	0xc7, 0xe8, 0xdc, 0xff, 0xff, 0xff, 0x89, 0xc3, 0x8b, 0x45, 0xec, 0x83, 0xe8, 0x02, 0x89,
	0xc7, 0xe8, 0xcd, 0xff, 0xff, 0xff, 0x01, 0xd8, 0x48, 0x8b, 0x5d, 0xf8, 0xc9, 0xc3,
	/* main 0x401182 */
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xc7, 0x45, 0xfc, 0x01, 0x00, 0x00, 0x00,
	0x8b, 0x45, 0xfc, 0x89, 0xc7, 0xe8, 0x82, 0xff, 0xff, 0xff, 0x89, 0x45, 0xfc, 0x83, 0x45,
	0xfc, 0x03, 0x8b, 0x45, 0xfc, 0x89, 0xc7, 0xe8, 0x25, 0x00, 0x00, 0x00, 0x89, 0x45, 0xfc,
	0xbf, 0x04, 0x00, 0x00, 0x00, 0xe8, 0x8e, 0xff, 0xff, 0xff, 0x89, 0x45, 0xfc, 0xbf, 0x02,
	0x00, 0x00, 0x00, 0xe8, 0x57, 0xff, 0xff, 0xff, 0x01, 0x45, 0xfc, 0x8b, 0x45, 0xfc, 0x83,
	0xe8, 0x64, 0xc9, 0xc3,
	/* h 0x4011d1 */
	0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0x8b, 0x45, 0xfc, 0x83, 0xc0, 0x07, 0x5d, 0xc3,
};

static const uint8_t fx_extra[] = {
	/* 0x402000 handler: push %rbp; mov %rsp,%rbp; nop; pop %rbp; ret */
	0x55, 0x48, 0x89, 0xe5, 0x90, 0x5d, 0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90,
	/* 0x402010 restorer: mov $0xf,%rax; syscall */
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90,
	/* 0x402020 plt: jmp *0xfda(%rip) */
	0xff, 0x25, 0xda, 0x0f, 0x00, 0x00, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90,
	/* 0x402030 start: call main; hlt */
	0xe8, 0x4d, 0xf1, 0xff, 0xff, 0xf4, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90,
	/* 0x402040 tcc: call plt; nop; ret */
	0xe8, 0xdb, 0xff, 0xff, 0xff, 0x90, 0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90,
	/* 0x402050 pic: call 1f; 1: pop %rax; ret */
	0xe8, 0x00, 0x00, 0x00, 0x00, 0x58, 0xc3,
};

static __attribute__((unused)) int fx_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	const uint8_t *src;
	uint64_t base, size;

	(void)ctx;
	if (addr >= FX_BASE && addr < FX_BASE + sizeof(fx_text)) {
		src = fx_text;
		base = FX_BASE;
		size = sizeof(fx_text);
	} else if (addr >= FX_HANDLER && addr < FX_HANDLER + sizeof(fx_extra)) {
		src = fx_extra;
		base = FX_HANDLER;
		size = sizeof(fx_extra);
	} else {
		return -1;
	}
	if (n > base + size - addr)
		n = (size_t)(base + size - addr);
	/* Short reads of at most 7 bytes exercise the readers' retry loops. */
	if (n > 7)
		n = 7;
	memcpy(buf, src + (addr - base), n);
	return (int)n;
}

/* Line table rows of t.c (all is_stmt); h and the extras have none. */
static const struct {
	uint64_t addr;
	int line;
} fx_rows[] = {
	{ 0x401106, 3 },  { 0x40110d, 4 },  { 0x401115, 5 },  { 0x40111b, 6 },  { 0x40111d, 8 },
	{ 0x401128, 9 },  { 0x401135, 10 }, { 0x40113f, 10 }, { 0x401142, 11 }, { 0x401145, 12 },
	{ 0x401147, 14 }, { 0x401153, 15 }, { 0x401159, 16 }, { 0x40115e, 17 }, { 0x40116d, 17 },
	{ 0x40117a, 17 }, { 0x40117c, 18 }, { 0x401182, 20 }, { 0x40118a, 21 }, { 0x401191, 22 },
	{ 0x40119e, 23 }, { 0x4011a2, 24 }, { 0x4011af, 25 }, { 0x4011bc, 26 }, { 0x4011c6, 26 },
	{ 0x4011c9, 27 }, { 0x4011cf, 28 }, { 0x4011d1, 0 },
	/* the handler: "{" at 30, a statement at 31, "}" at 32 */
	{ 0x402000, 30 }, { 0x402004, 31 }, { 0x402005, 32 }, { 0x402007, 0 },
};

/* Per-row ranges, as gdb 13's find_pc_line returns them; line 0 rows
 * end a sequence (h, the trampoline and the stubs have no lines). */
static __attribute__((unused)) int fx_line_of(void *ctx, uint64_t addr, struct ptd_line_info *li)
{
	size_t i, n = sizeof(fx_rows) / sizeof(fx_rows[0]);

	(void)ctx;
	for (i = 0; i + 1 < n; i++) {
		if (addr >= fx_rows[i].addr && addr < fx_rows[i + 1].addr) {
			if (!fx_rows[i].line)
				return -1;
			li->file = "t.c";
			li->line = fx_rows[i].line;
			li->lo = fx_rows[i].addr;
			li->hi = fx_rows[i + 1].addr;
			li->is_stmt = 1;
			return 0;
		}
	}
	return -1;
}

static const uint64_t fx_funcs[][2] = {
	{ FX_G, FX_F },         { FX_F, FX_FIB },       { FX_FIB, FX_MAIN },
	{ FX_MAIN, FX_H },      { FX_H, FX_END },       { FX_HANDLER, FX_HANDLER + 7 },
	{ FX_RESTORER, FX_RESTORER + 9 }, { FX_PLT, FX_PLT + 6 }, { FX_START, FX_START + 6 },
	{ FX_TCC, FX_XEND }, { FX_PIC, FX_PIC + 7 },
};

static __attribute__((unused)) uint64_t fx_func_of(void *ctx, uint64_t addr)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(fx_funcs) / sizeof(fx_funcs[0]); i++)
		if (addr >= fx_funcs[i][0] && addr < fx_funcs[i][1])
			return fx_funcs[i][0];
	return 0;
}

/* The simulator: appends blocks and keeps the executed ips as the truth. */
struct fx_sim {
	struct ptd_history *h;
	uint64_t *ips;
	size_t n, cap;
	int err;
};

static __attribute__((unused)) void fx_sim_init(struct fx_sim *s)
{
	memset(s, 0, sizeof(*s));
	s->h = ptd_history_alloc(fx_read, NULL);
}

static __attribute__((unused)) void fx_sim_fini(struct fx_sim *s)
{
	ptd_history_free(s->h);
	free(s->ips);
}

static __attribute__((unused)) void fx_push_ip(struct fx_sim *s, uint64_t ip)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->ips = realloc(s->ips, s->cap * sizeof(*s->ips));
	}
	s->ips[s->n++] = ip;
}

/* Runs the straight-line code from @ip to @end (its last instruction). */
static __attribute__((unused)) void fx_run(struct fx_sim *s, uint64_t ip, uint64_t end, int iclass,
					   int flags)
{
	struct ptd_block b;
	uint64_t p = ip;
	uint32_t n = 0;

	for (;;) {
		uint8_t buf[16];
		struct ptd_insn_info in;
		int got = 0, r;

		while (got < 15 && (r = fx_read(NULL, p + got, buf + got, 15 - got)) > 0)
			got += r;
		if (got <= 0 || ptd_disasm_decode(buf, (size_t)got, p, &in) < 0) {
			s->err = 1;
			return;
		}
		fx_push_ip(s, p);
		n++;
		if (p == end)
			break;
		p += in.len;
		if (p > end) {
			s->err = 1;
			return;
		}
	}
	b.ip = ip;
	b.end_ip = end;
	b.ninsn = n;
	b.iclass = (uint8_t)iclass;
	b.flags = (uint8_t)flags;
	if (ptd_history_append_block(s->h, &b) < 0)
		s->err = 1;
}

static __attribute__((unused)) void fx_g(struct fx_sim *s)
{
	fx_run(s, 0x401106, 0x40111c, PTD_IC_RET, 0);
}

static __attribute__((unused)) void fx_f(struct fx_sim *s)
{
	fx_run(s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	fx_g(s);
	fx_run(s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	fx_g(s);
	fx_run(s, 0x40113f, 0x401146, PTD_IC_RET, 0);
}

static __attribute__((unused)) void fx_fib(struct fx_sim *s, int n)
{
	fx_run(s, 0x401147, 0x401157, PTD_IC_COND_JUMP, 0);
	if (n < 2) {
		fx_run(s, 0x401159, 0x40115c, PTD_IC_JUMP, 0);
		fx_run(s, 0x40117c, 0x401181, PTD_IC_RET, 0);
		return;
	}
	fx_run(s, 0x40115e, 0x401166, PTD_IC_CALL, 0);
	fx_fib(s, n - 1);
	fx_run(s, 0x40116b, 0x401175, PTD_IC_CALL, 0);
	fx_fib(s, n - 2);
	fx_run(s, 0x40117a, 0x401181, PTD_IC_RET, 0);
}

static __attribute__((unused)) void fx_h(struct fx_sim *s)
{
	fx_run(s, 0x4011d1, 0x4011df, PTD_IC_RET, 0);
}

/* main up to and including its ret. */
static __attribute__((unused)) void fx_main(struct fx_sim *s)
{
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	fx_f(s);
	fx_run(s, 0x40119b, 0x4011a7, PTD_IC_CALL, 0);
	fx_h(s);
	fx_run(s, 0x4011ac, 0x4011b4, PTD_IC_CALL, 0);
	fx_fib(s, 4);
	fx_run(s, 0x4011b9, 0x4011c1, PTD_IC_CALL, 0);
	fx_f(s);
	fx_run(s, 0x4011c6, 0x4011d0, PTD_IC_RET, 0);
}

/* The whole program from the start stub; the tail is the hlt after main. */
static __attribute__((unused)) void fx_program(struct fx_sim *s)
{
	fx_run(s, FX_START, FX_START, PTD_IC_CALL, 0);
	fx_main(s);
	ptd_history_set_tail(s->h, FX_START + 5);
	fx_push_ip(s, FX_START + 5);
}

/* Number of the first executed instruction at @ip after position @after. */
static __attribute__((unused)) uint64_t fx_num(const struct fx_sim *s, uint64_t ip, uint64_t after)
{
	size_t i;

	for (i = (size_t)after; i < s->n; i++)
		if (s->ips[i] == ip)
			return i + 1;
	return 0;
}

#endif
