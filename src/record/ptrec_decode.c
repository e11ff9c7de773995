/*
 * The Intel PT recorder's decoding (see ptrec.c for the streams): the new
 * bytes of a thread's current stream decoded from the newest PSB decoded
 * so far, with the decoder state the bytes before it ended in, into the
 * thread's history, skipping what it holds already.
 */
#include "record/ptrec_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/image.h"
#include "decode/pt.h"
#include "disasm/disasm.h"
#include "util/error.h"

/* ---- decoding ---------------------------------------------------------------------------------- */

/* The sink of a run: skips what the history has already, appends the
 * rest to a scratch history. */
struct skip {
	struct ptd_history *out;
	struct ptd_history *h; /* the thread's history (flags of a skipped last block) */
	struct ptd_image *img;
	uint64_t skip_n, skip_ev;
	uint64_t run_n, run_ev; /* what this run gave: numbers, events after the last */
	/* The thread's exit syscall (ptrthread.exit_sys), or 0.  Then the
	 * newest block and the events after it are held back until more
	 * comes, so that one ending in that syscall loses it (exit_trim). */
	uint64_t exit_sys;
	int held, trimmed;
	struct ptd_block hb;
	struct {
		enum ptd_event_kind kind;
		uint64_t ip, arg;
	} hev[8];
	int nhev;
};

/* Appends what is held back. */
static int out_flush(struct skip *k)
{
	int rc = 0;

	if (k->held)
		rc = ptd_history_append_block(k->out, &k->hb);
	for (int i = 0; rc == 0 && i < k->nhev; i++)
		rc = ptd_history_append_event(k->out, k->hev[i].kind, k->hev[i].ip, k->hev[i].arg);
	k->held = 0;
	k->nhev = 0;
	return rc;
}

static int out_block(struct skip *k, const struct ptd_block *b)
{
	int rc;

	if (!k->exit_sys)
		return ptd_history_append_block(k->out, b);
	rc = out_flush(k);
	k->hb = *b;
	k->held = 1;
	return rc;
}

static int out_gap(struct skip *k, enum ptd_gap_reason r, uint64_t off, const char *detail)
{
	int rc = out_flush(k);

	return rc < 0 ? rc : ptd_history_append_gap(k->out, r, off, detail);
}

static int out_event(struct skip *k, enum ptd_event_kind e, uint64_t ip, uint64_t arg)
{
	if (k->held && k->nhev < (int)(sizeof(k->hev) / sizeof(k->hev[0]))) {
		k->hev[k->nhev].kind = e;
		k->hev[k->nhev].ip = ip;
		k->hev[k->nhev].arg = arg;
		k->nhev++;
		return 0;
	}
	int rc = out_flush(k);
	return rc < 0 ? rc : ptd_history_append_event(k->out, e, ip, arg);
}

/*
 * The end of an exiting thread's trace: a held block ending in its exit
 * syscall loses that instruction, and the events after it (tracing
 * disabled as it entered the kernel) go with it.  The thread never runs
 * again, so nothing decoded later depends on the numbers skipped here.
 */
static int exit_trim(struct skip *k)
{
	struct ptd_block b = k->hb;
	uint64_t ip = b.ip;

	if (!k->held || b.end_ip != k->exit_sys || b.iclass != PTD_IC_FAR_CALL)
		return out_flush(k);
	k->held = 0;
	k->nhev = 0;
	k->trimmed = 1;
	if (b.ninsn == 1)
		return 0;
	/* The instruction before the syscall ends the block now. */
	for (uint32_t i = 0; i + 2 < b.ninsn; i++) {
		uint8_t buf[16];
		struct ptd_insn_info in;
		int n = ptd_image_read(k->img, ip, buf, sizeof(buf));

		if (n <= 0 || ptd_disasm_decode_mode(buf, (size_t)n, ip, ptd_block_mode(&b), &in) < 0)
			return ptd__err(-ptde_bad_insn, "cannot decode the instruction at 0x%llx",
					(unsigned long long)ip);
		ip += in.len;
	}
	b.end_ip = ip;
	b.ninsn--;
	b.iclass = PTD_IC_OTHER;
	b.flags &= (uint8_t)~(PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL);
	return ptd_history_append_block(k->out, &b);
}

static int sk_block(void *ctx, const struct ptd_block *b)
{
	struct skip *k = ctx;
	struct ptd_block rest = *b;

	k->run_n += b->ninsn;
	k->run_ev = 0;
	if (k->skip_n >= b->ninsn) {
		k->skip_n -= b->ninsn;
		if (k->skip_n == 0 && (b->flags & (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL)))
			/* Learnt from trace that came after the last read. */
			ptd_history_flag_last(k->h, b->flags & (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL));
		return 0;
	}
	if (k->skip_n) {
		/* The history has the first skip_n instructions of it. */
		uint64_t ip = b->ip;

		for (uint64_t i = 0; i < k->skip_n; i++) {
			uint8_t buf[16];
			struct ptd_insn_info in;
			int n = ptd_image_read(k->img, ip, buf, sizeof(buf));

			if (n <= 0 || ptd_disasm_decode_mode(buf, (size_t)n, ip, ptd_block_mode(b),
							     &in) < 0)
				return ptd__err(-ptde_bad_insn,
						"cannot decode the instruction at 0x%llx",
						(unsigned long long)ip);
			ip += in.len;
		}
		rest.ip = ip;
		rest.ninsn = b->ninsn - (uint32_t)k->skip_n;
		k->skip_n = 0;
		k->skip_ev = 0;
	}
	k->skip_ev = 0;
	return out_block(k, &rest);
}

static int sk_blocks(void *ctx, const struct ptd_block *b, size_t n)
{
	struct skip *k = ctx;

	if (!k->skip_n && !k->skip_ev && !k->exit_sys) {
		for (size_t i = 0; i < n; i++)
			k->run_n += b[i].ninsn;
		if (n)
			k->run_ev = 0;
		return ptd_history_append_blocks(k->out, b, n);
	}
	for (size_t i = 0; i < n; i++) {
		int rc = sk_block(ctx, &b[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int sk_gap(void *ctx, enum ptd_gap_reason r, uint64_t off, const char *detail)
{
	struct skip *k = ctx;

	k->run_n++;
	k->run_ev = 0;
	if (k->skip_n) {
		k->skip_n--;
		return 0;
	}
	k->skip_ev = 0;
	return out_gap(k, r, off, detail);
}

static int sk_event(void *ctx, enum ptd_event_kind e, uint64_t ip, uint64_t arg)
{
	struct skip *k = ctx;

	k->run_ev++;
	if (k->skip_n)
		return 0;
	if (k->skip_ev) {
		k->skip_ev--;
		return 0;
	}
	return out_event(k, e, ip, arg);
}

void ptd__ptrec_reset_stream(struct ptthread *th)
{
	th->s_start = th->pt_size;
	th->s_synced = 0;
	th->s_base = 0;
	ptd_pt_state_init(&th->s_state);
	th->s_done = th->s_done_ev = 0;
}

/*
 * Decodes what is new in the current stream into the history.  @final:
 * the stream ends here (data was lost after it, or the thread is gone).
 */
int ptd__ptrec_decode_stream(struct ptrec *p, struct ptthread *th, int final)
{
	const uint8_t *buf = th->pt + th->s_start;
	uint64_t end = th->pt_size - th->s_start;
	struct ptd_pt_sink sink = { sk_block, sk_gap, sk_event, NULL, sk_blocks };
	struct ptd_pt_state out;
	struct ptd_image *img;
	struct skip k;
	uint64_t *offs = NULL, *ips = NULL;
	size_t n = 0;
	uint8_t head = 0;
	int rc;

	if (end == 0)
		return 0;
	if (!th->s_synced) {
		rc = ptd_pt_index(buf, end, &offs, &ips, &n);
		if (rc < 0)
			return rc;
		if (!n) {
			free(offs);
			free(ips);
			if (final)
				return ptd_history_append_gap(
					th->h, PTD_GAP_LOST, th->s_start,
					"trace without a PSB packet: nothing could be decoded");
			return 0;
		}
		th->s_base = offs[0];
		th->s_synced = 1;
		if (offs[0] && th->s_lead_why) {
			char msg[300];

			snprintf(msg, sizeof(msg), "%s: %llu bytes of trace before the next PSB",
				 th->s_lead_why, (unsigned long long)offs[0]);
			ptd_history_append_gap(th->h, PTD_GAP_LOST, th->s_start, msg);
		}
		th->s_lead_why = NULL;
		free(offs);
		free(ips);
		offs = ips = NULL;
	}
	if (th->s_base >= end)
		return 0;
	rc = ptd_pt_index(buf + th->s_base, end - th->s_base, &offs, &ips, &n);
	if (rc < 0)
		return rc;
	img = ptd__ptrec_image(p);
	if (!img) {
		rc = ptd__err(-ptde_nomem, "out of memory for the process image");
		goto out;
	}
	memset(&k, 0, sizeof(k));
	k.h = th->h;
	k.img = img;
	k.skip_n = th->s_done;
	k.skip_ev = th->s_done_ev;
	k.exit_sys = th->exit_sys;
	k.out = ptd_history_alloc(p->rec.env.read_code, p->rec.env.ctx);
	if (!k.out) {
		rc = ptd__err(-ptde_nomem, "out of memory decoding Intel PT");
		goto out;
	}
	/* th->h's call log goes on with k.out's in the splice */
	ptd_history_share_func(k.out, th->h);
	sink.ctx = &k;
	if (n > 1) {
		/* Up to the newest PSB: final, and the state there is kept. */
		uint64_t last = th->s_base + offs[n - 1];

		rc = ptd_pt_decode_run(buf, end, th->s_base, last, ips[n - 1], img, &sink, &th->s_state,
				       &out, NULL);
		if (rc < 0)
			goto out_h;
		if (th->s_done == 0 && th->s_done_ev == 0)
			head = ptd_pt_state_head_flags(&out);
		th->s_base = last;
		th->s_state = out;
		th->s_done = th->s_done_ev = 0;
		k.run_n = k.run_ev = 0;
	}
	rc = ptd_pt_decode_run(buf, end, th->s_base, end, 0, img, &sink, &th->s_state, &out, NULL);
	if (rc < 0)
		goto out_h;
	if (n == 1 && th->s_done == 0 && th->s_done_ev == 0)
		head = ptd_pt_state_head_flags(&out);
	th->s_done = k.run_n;
	th->s_done_ev = k.run_ev;
	if (head)
		ptd_history_flag_last(th->h, head);
	if (k.exit_sys) {
		rc = exit_trim(&k);
		if (rc < 0)
			goto out_h;
		if (k.trimmed)
			th->exit_trimmed = 1;
	}
	rc = ptd_history_splice(th->h, k.out);
out_h:
	ptd_history_free(k.out);
out:
	free(offs);
	free(ips);
	if (rc < 0) {
		/* What could not be decoded is a gap that says why; the stream
		 * goes on after it from its next PSB. */
		char msg[300];

		snprintf(msg, sizeof(msg), "cannot decode the Intel PT of thread %d: %s",
			 (int)th->tid, ptd_last_error(rc));
		ptd_history_append_gap(th->h, PTD_GAP_DECODE_ERROR, (uint64_t)(int64_t)rc, msg);
		ptd__ptrec_reset_stream(th);
	}
	return rc;
}

/* The stream ends (data lost after it): decode its rest, put the gap. */
int ptd__ptrec_end_stream(struct ptrec *p, struct ptthread *th, const char *msg)
{
	int rc = ptd__ptrec_decode_stream(p, th, 1);

	ptd_history_append_gap(th->h, PTD_GAP_LOST, th->pt_size, msg);
	ptd__ptrec_reset_stream(th);
	return rc;
}

