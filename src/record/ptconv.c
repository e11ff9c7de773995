/*
 * Block history -> PT synthesizer outcomes (see ptconv.h).
 *
 * A block's outcome depends on where execution went next: the next
 * block's first ip, the ip of an event in between (a signal interrupts
 * before that instruction ran), or the tail.  So each block is held until
 * its successor is known.
 */
#include "record/ptconv.h"

#include "disasm/disasm.h"
#include "util/error.h"

struct conv {
	struct ptd_ptsynth *s;
	ptd_read_fn read;
	void *ctx;
	int have_prev;
	struct ptd_block prev;
};

static int end_insn(struct conv *c, const struct ptd_block *b, struct ptd_insn_info *info)
{
	uint8_t buf[16];
	int n = c->read(c->ctx, b->end_ip, buf, sizeof(buf));

	if (n <= 0 || ptd_disasm_decode(buf, (size_t)n, b->end_ip, info) < 0)
		return ptd__err(-ptde_bad_insn, "cannot decode the instruction at 0x%llx",
				(unsigned long long)b->end_ip);
	return 0;
}

/* Reports how the held block ended, given that execution went on at @next. */
static int resolve(struct conv *c, uint64_t next)
{
	struct ptd_block *b = &c->prev;
	struct ptd_insn_info info;
	uint64_t fall;
	int rc;

	if (!c->have_prev)
		return 0;
	c->have_prev = 0;
	if (b->iclass == PTD_IC_OTHER)
		return 0; /* fell through, or an async event follows */
	rc = end_insn(c, b, &info);
	if (rc < 0)
		return rc;
	fall = b->end_ip + info.len;
	switch (b->iclass) {
	case PTD_IC_COND_JUMP:
		return ptd_ptsynth_cond(c->s, next != fall, next);
	case PTD_IC_JUMP:
		if (info.flags & PTD_INSN_INDIRECT)
			return ptd_ptsynth_indirect(c->s, next);
		return 0;
	case PTD_IC_CALL:
		if (info.flags & PTD_INSN_INDIRECT)
			return ptd_ptsynth_icall(c->s, fall, next);
		return ptd_ptsynth_call(c->s, fall);
	case PTD_IC_RET:
		return ptd_ptsynth_ret(c->s, next);
	case PTD_IC_FAR_CALL:
	case PTD_IC_FAR_RET:
	case PTD_IC_FAR_JUMP:
		/* User-only tracing: into the kernel and back out at next. */
		return ptd_ptsynth_syscall(c->s, next);
	default:
		return 0;
	}
}

static int convert(struct ptd_ptsynth *s, const struct ptd_history *h, uint64_t tail_ip,
		   ptd_read_fn read, void *ctx, int end)
{
	struct conv c = { s, read, ctx, 0, { 0 } };
	struct ptd_item it;
	uint64_t n;
	int rc = 0;

	if (!s || !h || !read)
		return -ptde_invalid;
	n = ptd_history_nitems(h);
	for (uint64_t i = 0; i < n && rc == 0; i++) {
		if (!ptd_history_item(h, i, &it))
			return -ptde_internal;
		switch (it.kind) {
		case PTD_ITEM_BLOCK:
			if (!ptd_ptsynth_enabled(s)) {
				c.have_prev = 0;
				rc = ptd_ptsynth_begin(s, it.block.ip);
			} else {
				rc = resolve(&c, it.block.ip);
			}
			c.prev = it.block;
			c.have_prev = 1;
			break;
		case PTD_ITEM_GAP:
			/* Lost trace: the held block's outcome is unknown. */
			c.have_prev = 0;
			if (ptd_ptsynth_enabled(s)) {
				/* Resume where the next block starts (found below). */
				uint64_t resume = 0;
				struct ptd_item nx;
				for (uint64_t j = i + 1; j < n && ptd_history_item(h, j, &nx); j++)
					if (nx.kind == PTD_ITEM_BLOCK) {
						resume = nx.block.ip;
						break;
					}
				if (resume)
					rc = ptd_ptsynth_overflow(s, resume);
			}
			break;
		case PTD_ITEM_EVENT:
			if (it.reason == PTD_EV_SIGNAL && !ptd_ptsynth_enabled(s) && it.block.ip) {
				/* The stretch starts with a signal delivery (the
				 * thread stopped just before it): trace from the
				 * interrupted ip so the delivery is in the PT. */
				c.have_prev = 0;
				rc = ptd_ptsynth_begin(s, it.block.ip);
				if (rc < 0)
					break;
			}
			if (it.reason == PTD_EV_SIGNAL && ptd_ptsynth_enabled(s)) {
				/* Execution was about to go on at it.block.ip when the
				 * signal came; the handler is the next block. */
				uint64_t target = 0;
				struct ptd_item nx;
				rc = resolve(&c, it.block.ip);
				for (uint64_t j = i + 1; j < n && ptd_history_item(h, j, &nx); j++)
					if (nx.kind == PTD_ITEM_BLOCK) {
						target = nx.block.ip;
						break;
					}
				if (!target)
					target = tail_ip;
				if (rc == 0 && target) {
					rc = ptd_ptsynth_async(s, it.block.ip, target);
					/* skip the begin at the next block: tracing is on */
				}
			} else if (it.reason == PTD_EV_EXEC && ptd_ptsynth_enabled(s)) {
				/* The execve syscall never returns into the old image. */
				c.have_prev = 0;
				rc = ptd_ptsynth_syscall(s, it.block.ip);
			}
			break;
		}
	}
	if (rc == 0 && !end) {
		if (ptd_ptsynth_enabled(s) && tail_ip)
			rc = resolve(&c, tail_ip);
		return rc;
	}
	if (rc == 0 && end == 2 && ptd_ptsynth_enabled(s) && c.have_prev &&
	    (c.prev.iclass == PTD_IC_FAR_CALL)) {
		/* exit: into the kernel for good */
		c.have_prev = 0;
		return ptd_ptsynth_syscall(s, 0);
	}
	if (rc == 0 && ptd_ptsynth_enabled(s)) {
		if (tail_ip) {
			rc = resolve(&c, tail_ip);
			if (rc == 0)
				rc = ptd_ptsynth_end(s, tail_ip);
		} else {
			rc = ptd_ptsynth_flush(s);
		}
	}
	return rc;
}

int ptd_ptconv_history(struct ptd_ptsynth *s, const struct ptd_history *h, uint64_t tail_ip,
		       ptd_read_fn read, void *ctx)
{
	return convert(s, h, tail_ip, read, ctx, 1);
}

int ptd_ptconv_partial(struct ptd_ptsynth *s, const struct ptd_history *h, uint64_t next_ip,
		       ptd_read_fn read, void *ctx)
{
	return convert(s, h, next_ip, read, ctx, 0);
}

int ptd_ptconv_exit(struct ptd_ptsynth *s, const struct ptd_history *h, ptd_read_fn read,
		    void *ctx)
{
	return convert(s, h, 0, read, ctx, 2);
}
