/*
 * Breakpoints and watchpoints for the stub (Z/z packets).  Z0 becomes a
 * session breakpoint (int3).  Z1 (hardware breakpoint) and Z2/Z3/Z4
 * (write, read, access watchpoints) take the x86 debug registers through
 * the session (ptd_session_hw_set): a region is split into aligned pieces
 * of 1, 2, 4 or 8 bytes, one slot each, as gdbserver does, and a Z packet
 * needing more slots than are free gets an error, so gdb says it cannot
 * insert it.  The hardware has no read-only watchpoint: Z3 watches
 * accesses and the stub tells reads from writes by the watched bytes
 * (ptd__stub_hw_only_writes), as gdb itself does for rwatch when a
 * target offers access watchpoints only.
 */
#include "gdb/stub_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The watched bytes a Z3 compares (at most sizeof(val); gdb watches no
 * more than a few words with hardware). */
static size_t val_len(const struct zhw *h)
{
	return h->len < sizeof(h->val) ? (size_t)h->len : sizeof(h->val);
}

static void hw_snapshot(struct ptd_stub *st, struct zhw *h)
{
	if (h->type == 3 && ptd_session_read(st->s, h->addr, h->val, val_len(h)) != (long)val_len(h))
		memset(h->val, 0, sizeof(h->val));
}

static void hw_release(struct ptd_stub *st, unsigned slots)
{
	for (int i = 0; i < PTD_HW_SLOTS; i++)
		if (slots & (1u << i))
			ptd_session_hw_clear(st->s, i);
}

static int hw_insert(struct ptd_stub *st, int type, uint64_t addr, uint64_t len,
		     struct ptd_rsp_buf *out)
{
	uint64_t pa[PTD_HW_SLOTS];
	int pl[PTD_HW_SLOTS], npieces;
	enum ptd_hw_kind kind = type == 1 ? PTD_HW_EXEC : type == 2 ? PTD_HW_WRITE : PTD_HW_ACCESS;
	struct zhw *h;

	/* an instruction breakpoint watches the first byte, whatever its length */
	if (type == 1)
		len = 1;
	for (int i = 0; i < st->nhw; i++)
		if (st->hw[i].type == type && st->hw[i].addr == addr && st->hw[i].len == len) {
			st->hw[i].refs++;
			ptd_rsp_puts(out, "OK");
			return PTD_STUB_REPLY;
		}
	npieces = ptd_hw_pieces(addr, len, pa, pl, PTD_HW_SLOTS);
	if (npieces <= 0 || npieces > PTD_HW_SLOTS || st->nhw == PTD_HW_SLOTS) {
		ptd__stub_reply_err(out, 28); /* ENOSPC: not enough debug registers */
		return PTD_STUB_REPLY;
	}
	h = &st->hw[st->nhw];
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->addr = addr;
	h->len = len;
	h->refs = 1;
	for (int i = 0; i < npieces; i++) {
		int slot = ptd_session_hw_free_slot(st->s);
		if (slot < 0 || ptd_session_hw_set(st->s, slot, pa[i], pl[i], kind) < 0) {
			hw_release(st, h->slots);
			ptd__stub_reply_err(out, slot < 0 ? 28 : 22);
			return PTD_STUB_REPLY;
		}
		h->slots |= 1u << slot;
	}
	hw_snapshot(st, h);
	st->nhw++;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int hw_remove(struct ptd_stub *st, int type, uint64_t addr, uint64_t len,
		     struct ptd_rsp_buf *out)
{
	if (type == 1)
		len = 1;
	for (int i = 0; i < st->nhw; i++) {
		struct zhw *h = &st->hw[i];
		if (h->type != type || h->addr != addr || h->len != len)
			continue;
		if (--h->refs == 0) {
			hw_release(st, h->slots);
			st->hw[i] = st->hw[--st->nhw];
		}
		break;
	}
	/* one gdb thinks inserted but lost with the process: gone all the same */
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static struct zhw *hw_of_slot(struct ptd_stub *st, int slot)
{
	for (int i = 0; i < st->nhw; i++)
		if (st->hw[i].slots & (1u << slot))
			return &st->hw[i];
	return NULL;
}

void ptd__stub_hw_reason(struct ptd_stub *st, const struct ptd_event *ev, struct ptd_rsp_buf *out)
{
	static const char *const names[] = { "", "hwbreak", "watch", "rwatch", "awatch" };

	for (int i = 0; i < PTD_HW_SLOTS; i++) {
		struct zhw *h;
		uint64_t a = 0;
		if (!(ev->hw_hits & (1u << i)) || !(h = hw_of_slot(st, i)))
			continue;
		if (h->type == 1) {
			ptd_rsp_puts(out, "hwbreak:;");
			return;
		}
		/* the piece that triggered: inside the region gdb watches */
		if (ptd_session_hw_get(st->s, i, &a, NULL, NULL) != 1)
			a = h->addr;
		ptd_rsp_printf(out, "%s:%llx;", names[h->type], (unsigned long long)a);
		return;
	}
}

int ptd__stub_hw_only_writes(struct ptd_stub *st, const struct ptd_event *ev)
{
	uint8_t now[sizeof(((struct zhw *)0)->val)];
	int any = 0;

	if (ev->kind != PTD_EVENT_HWBREAK)
		return 0;
	for (int i = 0; i < PTD_HW_SLOTS; i++) {
		struct zhw *h;
		if (!(ev->hw_hits & (1u << i)))
			continue;
		h = hw_of_slot(st, i);
		if (!h || h->type != 3)
			return 0;
		if (ptd_session_read(st->s, h->addr, now, val_len(h)) != (long)val_len(h) ||
		    !memcmp(now, h->val, val_len(h)))
			return 0; /* unchanged: a read */
		any = 1;
	}
	if (!any)
		return 0;
	for (int i = 0; i < st->nhw; i++)
		hw_snapshot(st, &st->hw[i]);
	return 1;
}

void ptd__stub_hw_refresh(struct ptd_stub *st)
{
	for (int i = 0; i < st->nhw; i++)
		hw_snapshot(st, &st->hw[i]);
}

void ptd__stub_break_exec(struct ptd_stub *st)
{
	/* The session resolved the breakpoints again in the new program
	 * (by address: gdb's, of the old one); gdb inserts its own again. */
	for (int i = 0; i < st->nbp; i++)
		ptd_session_delete(st->s, st->bp[i].id);
	for (int i = 0; i < st->nhw; i++)
		hw_release(st, st->hw[i].slots);
	ptd__stub_break_forget(st);
}

void ptd__stub_break_forget(struct ptd_stub *st)
{
	st->nbp = 0;
	st->nhw = 0;
}

/* "TYPE,ADDR,KIND[;cond...]": returns TYPE (5 for any above 4) and sets
 * *@addr and *@kind (the length for Z1-Z4), or -1 when malformed. */
static int z_parse(char *p, size_t n, uint64_t *addr, uint64_t *kind)
{
	const char *q = p, *end = p + n;
	uint64_t type;

	if (ptd__stub_parse_hex(&q, end, &type) < 0 || ptd__stub_expect(&q, end, ',') < 0 ||
	    ptd__stub_parse_hex(&q, end, addr) < 0 || ptd__stub_expect(&q, end, ',') < 0 ||
	    ptd__stub_parse_hex(&q, end, kind) < 0 || (q != end && *q != ';'))
		return -1;
	return (int)(type > 4 ? 5 : type);
}

static int h_Z(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	uint64_t addr, kind;
	char spec[32];
	int type = z_parse(p, n, &addr, &kind), id;

	if (type < 0 || !ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (type >= 1 && type <= 4)
		return hw_insert(st, type, addr, kind, out);
	if (type != 0)
		return PTD_STUB_REPLY; /* not supported: gdb uses another way */
	for (int i = 0; i < st->nbp; i++)
		if (st->bp[i].addr == addr) {
			st->bp[i].refs++;
			ptd_rsp_puts(out, "OK");
			return PTD_STUB_REPLY;
		}
	if (st->nbp == st->capbp) {
		int cap = st->capbp ? 2 * st->capbp : 16;
		struct zbp *b = realloc(st->bp, (size_t)cap * sizeof(*b));
		if (!b) {
			ptd__stub_reply_err(out, 12);
			return PTD_STUB_REPLY;
		}
		st->bp = b;
		st->capbp = cap;
	}
	snprintf(spec, sizeof(spec), "*0x%llx", (unsigned long long)addr);
	id = ptd_session_break(st->s, spec, 0);
	if (id < 0) {
		ptd__stub_reply_err(out, 14);
		return PTD_STUB_REPLY;
	}
	st->bp[st->nbp++] = (struct zbp){addr, id, 1};
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_z(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	uint64_t addr, kind;
	int type = z_parse(p, n, &addr, &kind);

	if (type < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (type >= 1 && type <= 4)
		return hw_remove(st, type, addr, kind, out);
	if (type != 0)
		return PTD_STUB_REPLY;
	for (int i = 0; i < st->nbp; i++) {
		if (st->bp[i].addr != addr)
			continue;
		if (--st->bp[i].refs == 0) {
			if (ptd__stub_live(st))
				ptd_session_delete(st->s, st->bp[i].id);
			st->bp[i] = st->bp[--st->nbp];
		}
		break;
	}
	/* A breakpoint gdb thinks is inserted but we lost with the process
	 * is gone all the same. */
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}


const struct ptd__stub_packet ptd__stub_break_packets[] = {
	{"Z", PTD__STUB_PREFIX, h_Z},
	{"z", PTD__STUB_PREFIX, h_z},
	{NULL, 0, NULL},
};
