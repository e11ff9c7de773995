/*
 * Registers and memory for the stub: g/G/p/P, m/M/X.  Registers follow
 * the amd64 target description stub_xfer.c serves (the layout of
 * gdbserver's amd64-linux without AVX); registers ptdbg does not know
 * (all but rip in most of the past, x87 and SSE in all of it) are sent as
 * 'x' bytes, gdb's "unavailable".  The past cannot be written.
 */
#include "gdb/stub_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

/* ---- registers ------------------------------------------------------------------------ */

#define NOREG (-1)
#define R(f) offsetof(struct user_regs_struct, f)

struct regdesc {
	const char *name;
	int size;   /* bytes in the g packet */
	int offset; /* in struct user_regs_struct, or NOREG (unavailable) */
};

/* In the order (and with the numbers) of the target description below. */
static const struct regdesc regs[] = {
	{"rax", 8, R(rax)},	    {"rbx", 8, R(rbx)},
	{"rcx", 8, R(rcx)},	    {"rdx", 8, R(rdx)},
	{"rsi", 8, R(rsi)},	    {"rdi", 8, R(rdi)},
	{"rbp", 8, R(rbp)},	    {"rsp", 8, R(rsp)},
	{"r8", 8, R(r8)},	    {"r9", 8, R(r9)},
	{"r10", 8, R(r10)},	    {"r11", 8, R(r11)},
	{"r12", 8, R(r12)},	    {"r13", 8, R(r13)},
	{"r14", 8, R(r14)},	    {"r15", 8, R(r15)},
	{"rip", 8, R(rip)},	    {"eflags", 4, R(eflags)},
	{"cs", 4, R(cs)},	    {"ss", 4, R(ss)},
	{"ds", 4, R(ds)},	    {"es", 4, R(es)},
	{"fs", 4, R(fs)},	    {"gs", 4, R(gs)},
	{"st0", 10, NOREG},	    {"st1", 10, NOREG},
	{"st2", 10, NOREG},	    {"st3", 10, NOREG},
	{"st4", 10, NOREG},	    {"st5", 10, NOREG},
	{"st6", 10, NOREG},	    {"st7", 10, NOREG},
	{"fctrl", 4, NOREG},	    {"fstat", 4, NOREG},
	{"ftag", 4, NOREG},	    {"fiseg", 4, NOREG},
	{"fioff", 4, NOREG},	    {"foseg", 4, NOREG},
	{"fooff", 4, NOREG},	    {"fop", 4, NOREG},
	{"xmm0", 16, NOREG},	    {"xmm1", 16, NOREG},
	{"xmm2", 16, NOREG},	    {"xmm3", 16, NOREG},
	{"xmm4", 16, NOREG},	    {"xmm5", 16, NOREG},
	{"xmm6", 16, NOREG},	    {"xmm7", 16, NOREG},
	{"xmm8", 16, NOREG},	    {"xmm9", 16, NOREG},
	{"xmm10", 16, NOREG},	    {"xmm11", 16, NOREG},
	{"xmm12", 16, NOREG},	    {"xmm13", 16, NOREG},
	{"xmm14", 16, NOREG},	    {"xmm15", 16, NOREG},
	{"mxcsr", 4, NOREG},	    {"orig_rax", 8, R(orig_rax)},
	{"fs_base", 8, R(fs_base)}, {"gs_base", 8, R(gs_base)},
};
#define NREGS ((int)(sizeof(regs) / sizeof(regs[0])))

/* Registers now, and which are known (see ptd_session_regs_known): all
 * live, rip and perhaps rsp or rbp in the past. */
static int regs_now(struct ptd_stub *st, struct user_regs_struct *r, uint64_t *known)
{
	if (!ptd__stub_live(st) || ptd__stub_select_tid(st, st->g_tid) < 0)
		return -1;
	return ptd_session_regs_known(st->s, r, known) < 0 ? -1 : 0;
}

/*
 * The x87/SSE state, live only (no recorder keeps it): NULL in the past
 * or when it cannot be read.
 */
static const struct user_fpregs_struct *fp_now(struct ptd_stub *st, struct user_fpregs_struct *f)
{
	pid_t tid = st->g_tid > 0 ? st->g_tid : ptd__stub_current_tid(st);

	if (ptd_session_replaying(st->s) ||
	    ptd_session_fpregs(st->s, tid, f) < 0)
		return NULL;
	return f;
}

/* gdb's full x87 tag word from FXSAVE's abridged one (gdb's
 * i387_supply_fxsave does the same): empty (3) where the bit is clear,
 * else valid (0), zero (1) or special (2) from the register's value. */
static unsigned full_tag(const struct user_fpregs_struct *f)
{
	unsigned top = (f->swd >> 11) & 7, tag = 0;

	for (unsigned phys = 0; phys < 8; phys++) {
		unsigned t = 3;
		if (f->ftw & (1u << phys)) {
			/* ST(i) is physical register (top + i) % 8 */
			const uint8_t *v = (const uint8_t *)f->st_space + 16 * ((phys - top) & 7);
			unsigned exp = (v[9] & 0x7f) << 8 | v[8];
			uint64_t mant;
			memcpy(&mant, v, 8);
			if (exp == 0x7fff)
				t = 2;
			else if (exp == 0)
				t = mant ? 2 : 1;
			else
				t = (mant >> 63) ? 0 : 2;
		}
		tag |= t << (2 * phys);
	}
	return tag;
}

/* Register @i's bytes from the x87/SSE state; returns the size, or -1
 * for a register that is not in it. */
static int fp_reg(const struct user_fpregs_struct *f, int i, uint8_t *b)
{
	uint32_t v;

	if (i >= 24 && i < 32) { /* st0-7: 10 bytes of each 16-byte slot */
		memcpy(b, (const uint8_t *)f->st_space + 16 * (i - 24), 10);
		return 10;
	}
	if (i >= 40 && i < 56) {
		memcpy(b, (const uint8_t *)f->xmm_space + 16 * (i - 40), 16);
		return 16;
	}
	switch (i) {
	case 32:
		v = f->cwd;
		break;
	case 33:
		v = f->swd;
		break;
	case 34:
		v = full_tag(f);
		break;
	/* the 64-bit FXSAVE layout: instruction and operand pointers are
	 * 64 bits, which gdb's amd64 splits as offset (low) and "segment"
	 * (high half) */
	case 35:
		v = (uint32_t)(f->rip >> 32);
		break;
	case 36:
		v = (uint32_t)f->rip;
		break;
	case 37:
		v = (uint32_t)(f->rdp >> 32);
		break;
	case 38:
		v = (uint32_t)f->rdp;
		break;
	case 39:
		v = f->fop;
		break;
	case 56:
		v = f->mxcsr;
		break;
	default:
		return -1;
	}
	memcpy(b, &v, 4);
	return 4;
}

/* All registers of struct user_regs_struct known (live). */
#define ALL_KNOWN ((1ull << (sizeof(struct user_regs_struct) / 8)) - 1)

static void put_reg(struct ptd_rsp_buf *out, const struct user_regs_struct *r, uint64_t known,
		    const struct user_fpregs_struct *f, int i)
{
	uint8_t b[16];

	if (regs[i].offset == NOREG && f && fp_reg(f, i, b) == regs[i].size) {
		ptd_rsp_put_hex(out, b, (size_t)regs[i].size);
		return;
	}
	if (regs[i].offset == NOREG || !(known & (1ull << (regs[i].offset / 8)))) {
		for (int k = 0; k < regs[i].size; k++)
			ptd_rsp_puts(out, "xx");
		return;
	}
	/* x86 is little-endian: the low bytes of each 64-bit field */
	ptd_rsp_put_hex(out, (const uint8_t *)r + regs[i].offset, (size_t)regs[i].size);
}

static int h_g(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	struct user_regs_struct r;
	uint64_t known = 0;

	struct user_fpregs_struct fb;
	const struct user_fpregs_struct *f;

	if (n || regs_now(st, &r, &known) < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	f = fp_now(st, &fb);
	for (int i = 0; i < NREGS; i++)
		put_reg(out, &r, known, f, i);
	return PTD_STUB_REPLY;
}

static int h_p(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	struct user_regs_struct r;
	uint64_t num;
	uint64_t known = 0;

	if (ptd__stub_parse_hex(&q, end, &num) < 0 || q != end || num >= (uint64_t)NREGS ||
	    regs_now(st, &r, &known) < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	{
		struct user_fpregs_struct fb;
		put_reg(out, &r, known, fp_now(st, &fb), (int)num);
	}
	return PTD_STUB_REPLY;
}

/* Writes registers only live: the past cannot be changed. */
static int write_regs(struct ptd_stub *st, const struct user_regs_struct *r)
{
	pid_t tid = st->g_tid > 0 ? st->g_tid : ptd__stub_current_tid(st);

	if (ptd_session_replaying(st->s))
		return -1;
	return ptd_session_set_regs(st->s, tid, r) < 0 ? -1 : 0;
}

/* Copies register @i from hex @hex (2 * size digits) into @r; 'x' bytes
 * (gdb does not know it either) leave it alone. */
static int take_reg(struct user_regs_struct *r, int i, const char *hex)
{
	uint8_t b[16];

	if (hex[0] == 'x')
		return 0;
	if (ptd_rsp_unhex(hex, 2 * (size_t)regs[i].size, b, sizeof(b)) != regs[i].size)
		return -1;
	if (regs[i].offset == NOREG)
		return -1;
	memcpy((uint8_t *)r + regs[i].offset, b, (size_t)regs[i].size);
	return 0;
}

static int h_P(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	struct user_regs_struct r;
	uint64_t num;
	uint64_t known = 0;

	if (ptd__stub_parse_hex(&q, end, &num) < 0 || ptd__stub_expect(&q, end, '=') < 0 || num >= (uint64_t)NREGS ||
	    (size_t)(end - q) != 2 * (size_t)regs[num].size || regs_now(st, &r, &known) < 0 ||
	    known != ALL_KNOWN || take_reg(&r, (int)num, q) < 0 || write_regs(st, &r) < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_G(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	struct user_fpregs_struct fb;
	const struct user_fpregs_struct *f;
	struct user_regs_struct r;
	size_t need = 0, off = 0;
	uint64_t known = 0;

	for (int i = 0; i < NREGS; i++)
		need += 2 * (size_t)regs[i].size;
	if (n != need || regs_now(st, &r, &known) < 0 || known != ALL_KNOWN) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	f = fp_now(st, &fb);
	for (int i = 0; i < NREGS; i++) {
		uint8_t now[16], want[16];
		/* the x87/SSE registers cannot be written: gdb must send back
		 * what it read ('x' where it read that) */
		if (regs[i].offset == NOREG) {
			if (p[off] != 'x' && (!f || fp_reg(f, i, now) != regs[i].size ||
					      ptd_rsp_unhex(p + off, 2 * (size_t)regs[i].size, want,
							    sizeof(want)) != regs[i].size ||
					      memcmp(now, want, (size_t)regs[i].size))) {
				ptd__stub_reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		} else if (take_reg(&r, i, p + off) < 0) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		off += 2 * (size_t)regs[i].size;
	}
	if (write_regs(st, &r) < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

/* "ADDR,LEN" */
static int h_m(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t addr, len;
	uint8_t *buf;
	long got;

	if (ptd__stub_addr_len(&q, end, &addr, &len) < 0 || q != end || !ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (len > (PTD_STUB_PACKET_SIZE - 4) / 2)
		len = (PTD_STUB_PACKET_SIZE - 4) / 2;
	if (!len)
		return PTD_STUB_REPLY;
	buf = malloc(len);
	if (!buf) {
		ptd__stub_reply_err(out, 12);
		return PTD_STUB_REPLY;
	}
	if (ptd__stub_select_tid(st, st->g_tid) < 0) {
		free(buf);
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	got = ptd_session_read(st->s, addr, buf, len);
	if (got <= 0)
		ptd__stub_reply_err(out, 14); /* EFAULT */
	else
		ptd_rsp_put_hex(out, buf, (size_t)got);
	free(buf);
	return PTD_STUB_REPLY;
}

static int write_mem(struct ptd_stub *st, uint64_t addr, const uint8_t *b, size_t len,
		     struct ptd_rsp_buf *out)
{
	if (!ptd__stub_live(st) || ptd_session_replaying(st->s)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (len && ptd_session_write(st->s, addr, b, len) != (long)len) {
		ptd__stub_reply_err(out, 14);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_M(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t addr, len;
	uint8_t *buf;
	int rc;

	if (ptd__stub_addr_len(&q, end, &addr, &len) < 0 || ptd__stub_expect(&q, end, ':') < 0 ||
	    (uint64_t)(end - q) != 2 * len) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	buf = malloc(len ? len : 1);
	if (!buf) {
		ptd__stub_reply_err(out, 12);
		return PTD_STUB_REPLY;
	}
	if (ptd_rsp_unhex(q, (size_t)(end - q), buf, len) != (long)len) {
		free(buf);
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	rc = write_mem(st, addr, buf, len, out);
	free(buf);
	return rc;
}

static int h_X(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t addr, len;
	long got;

	if (ptd__stub_addr_len(&q, end, &addr, &len) < 0 || ptd__stub_expect(&q, end, ':') < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	got = ptd_rsp_unescape((uint8_t *)q, (size_t)(end - q));
	if (got < 0 || (uint64_t)got != len) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return write_mem(st, addr, (const uint8_t *)q, (size_t)len, out);
}


const struct ptd__stub_packet ptd__stub_regs_packets[] = {
	{"g", PTD__STUB_PREFIX, h_g},
	{"G", PTD__STUB_PREFIX, h_G},
	{"p", PTD__STUB_PREFIX, h_p},
	{"P", PTD__STUB_PREFIX, h_P},
	{"m", PTD__STUB_PREFIX, h_m},
	{"M", PTD__STUB_PREFIX, h_M},
	{"X", PTD__STUB_PREFIX, h_X},
	{NULL, 0, NULL},
};
