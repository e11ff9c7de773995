/*
 * Test helper shared by test-ptcont.c and the fuzz-ptcont target: the
 * reference that ptdbg's PT histories are compared with, one continuous
 * libipt block decode of the same bytes, as a sequence of numbers (each
 * instruction's address with its execution mode, each gap's reason), over
 * the walker's program (ptwalk.h) and a 16-bit loop at LOW16.
 *
 * The includer defines PTREF_FAIL(msg) (how a broken expectation fails:
 * cmocka's fail_msg, or abort) before including it.
 */
#ifndef PTD_TEST_PTREF_H
#define PTD_TEST_PTREF_H

#include <intel-pt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm/disasm.h"
#include "history/history.h"
#include "ptwalk.h"

#ifndef PTREF_FAIL
#error "define PTREF_FAIL(msg) before including ptref.h"
#endif

#define GAPBIT (1ull << 63)
/* 32-bit and 16-bit entries are marked so a mode mix-up shows */
#define MODEBIT(m) ((uint64_t)(m) << 60)
#define BADLEN (1ull << 59) /* the disassembler stopped inside a block */

struct seq {
	uint64_t *v;
	size_t n, cap;
};

static void seq_push(struct seq *s, uint64_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n++] = x;
}

/* Code: the walker's program at PW_BASE, and a 16-bit loop at LOW16. */
#define LOW16 0x2000ull
static const uint8_t code16[] = {
	0x90,		  /* 2000: nop */
	0x40,		  /* 2001: inc %ax */
	0x75, 0xfc,	  /* 2002: jnz 2000 */
	0xe8, 0x02, 0x00, /* 2004: call 2009 (rel16) */
	0x90,		  /* 2007: nop */
	0xf4,		  /* 2008: hlt */
	0x48,		  /* 2009: dec %ax */
	0xc3,		  /* 200a: ret */
};

/* Code the image does not have, [ptref_hole_lo, ptref_hole_hi) (as a
 * library a capture's image lacks): every reader, the reference's too,
 * finds nothing mapped there. */
static uint64_t ptref_hole_lo, ptref_hole_hi;

static int code_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	if (addr >= ptref_hole_lo && addr < ptref_hole_hi)
		return 0;
	if (addr < ptref_hole_lo && n > ptref_hole_lo - addr)
		n = (size_t)(ptref_hole_lo - addr);
	if (addr >= LOW16 && addr < LOW16 + sizeof(code16)) {
		if (n > LOW16 + sizeof(code16) - addr)
			n = (size_t)(LOW16 + sizeof(code16) - addr);
		memcpy(buf, code16 + (addr - LOW16), n);
		return (int)n;
	}
	return pw_read(ctx, addr, buf, n);
}

static int ref_read(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip, void *ctx)
{
	int n;

	(void)asid;
	(void)ctx;
	n = code_read(NULL, ip, buf, size);
	return n > 0 ? n : -pte_nomap;
}

/* Damaged traces reach bytes that are no instruction of the program, where
 * libipt's and ptdbg's instruction decoders may disagree: with
 * ptref_lenient the rest of such a block is one marked number (for both
 * sides alike); without, it is a failure. */
static int ptref_lenient;

/* The errata the reference decodes with (a trace from a cpu libipt knows:
 * the histories' image gets the same cpu, ptd_image_set_cpu). */
static struct pt_errata ptref_errata;

/* Each instruction of a block as one number.  The lengths come from
 * ptdbg's disassembler, for both sides alike. */
static void seq_block(struct seq *s, uint64_t ip, uint64_t end_ip, uint32_t ninsn, unsigned mode)
{
	for (uint32_t k = 0; k < ninsn; k++) {
		uint8_t b[16];
		struct ptd_insn_info in;
		int n;

		if (k + 1 == ninsn) {
			if (!ptref_lenient && ip != end_ip)
				PTREF_FAIL("a block's instructions do not end at its end_ip");
			seq_push(s, end_ip | MODEBIT(mode));
			return;
		}
		seq_push(s, ip | MODEBIT(mode));
		n = code_read(NULL, ip, b, sizeof(b));
		if (n <= 0 || ptd_disasm_decode_mode(b, (size_t)n, ip, mode, &in) < 0) {
			if (!ptref_lenient)
				PTREF_FAIL("a block holds bytes that are no instruction");
			seq_push(s, BADLEN | (uint64_t)(ninsn - k - 1));
			seq_push(s, end_ip | MODEBIT(mode));
			return;
		}
		ip += in.len;
	}
}

/* Blocks in a row without trace consumed before the reference gives up
 * (a loop of direct branches in damaged trace: libipt would follow it
 * forever, ptdbg stops it with a gap after many more; such an input is
 * not compared). */
#define REF_STUCK 4096

/* reference()'s @how: gdb's rule for "disabled" gaps (what trace
 * histories give when asked) */
#define REF_GDB_GAPS 1
/* The stream is a chunk of a live recording, as ptd_pt_decode takes it:
 * an error after the trace ran out (libipt's pts_eos) ends the decode
 * without a gap, where one continuous decode of a whole trace gives one.
 * At a chunk's end the linear code after the last packet needs the trace
 * that comes next (the next chunk's decode goes on from there), and the
 * thread's pc cuts it; only an error there differs. */
#define REF_CHUNK_END 2

/*
 * The reference: one continuous libipt block decode (synchronised once
 * at the first PSB, again after each error), a gap per error and per
 * overflow and, with gdb's rule (REF_GDB_GAPS in @how), per tracing
 * resumed elsewhere than where it stopped after the first item.  Returns
 * 0, or -1 when stuck.  PTCONT_DUMP in the environment prints its errors.
 */
static int reference(const uint8_t *buf, size_t size, int how, struct seq *out)
{
	struct pt_config cfg;
	struct pt_block_decoder *d;
	struct pt_image *img = pt_image_alloc(NULL);
	uint64_t last_off = UINT64_MAX;
	unsigned still = 0;
	int status, have_item = 0, ret = 0, eos = 0;
	int gdb_gaps = how & REF_GDB_GAPS;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + size;
	cfg.flags.variant.block.end_on_call = 1;
	cfg.flags.variant.block.end_on_jump = 1;
	cfg.errata = ptref_errata;
	d = pt_blk_alloc_decoder(&cfg);
	if (!d || !img)
		abort();
	pt_image_set_callback(img, ref_read, NULL);
	pt_blk_set_image(d, img);
	status = pt_blk_sync_forward(d);
	{
		/* ptdbg's own gap for what comes before the first PSB:
		 * bytes that are not all zero (data lost before it), or, in
		 * a whole-buffer decode (@gdb_gaps 0), no PSB at all */
		uint64_t first = size, i;
		int lost = 0;

		if (status != -pte_eos && pt_blk_get_sync_offset(d, &first) < 0)
			first = size;
		for (i = 0; i < first && !lost; i++)
			lost = buf[i] != 0;
		if (lost || (!gdb_gaps && first == size)) {
			seq_push(out, GAPBIT | PTD_GAP_LOST);
			have_item = 1;
		}
	}
	while (status != -pte_eos) {
		struct pt_block b;
		uint64_t off = 0;

		if (status < 0) {
			uint64_t before = UINT64_MAX, after = UINT64_MAX;

			if (eos && (how & REF_CHUNK_END))
				break;
			if (getenv("PTCONT_DUMP")) {
				uint64_t o = 0;

				pt_blk_get_offset(d, &o);
				fprintf(stderr, "reference: %s at 0x%llx after %zu\n",
					pt_errstr(pt_errcode(status)), (unsigned long long)o, out->n);
			}
			/* ptdbg names a missing code page apart */
			seq_push(out, GAPBIT | (status == -pte_nomap ? PTD_GAP_NO_MEMORY
								     : PTD_GAP_DECODE_ERROR));
			have_item = 1;
			/* (a PSB+ it cannot read is an error of its own; libipt
			 * moves past it: if not, the end) */
			pt_blk_get_sync_offset(d, &before);
			status = pt_blk_sync_forward(d);
			if (status < 0 && status != -pte_eos &&
			    (pt_blk_get_sync_offset(d, &after) < 0 || after == before))
				break;
			continue;
		}
		while (status >= 0 && (status & pts_event_pending)) {
			struct pt_event ev;

			status = pt_blk_event(d, &ev, sizeof(ev));
			if (status < 0)
				break;
			if (ev.type == ptev_overflow) {
				seq_push(out, GAPBIT | PTD_GAP_OVERFLOW);
				have_item = 1;
			} else if (ev.type == ptev_enabled && gdb_gaps && !ev.status_update &&
				   !ev.variant.enabled.resumed && have_item) {
				seq_push(out, GAPBIT | PTD_GAP_DISABLED);
			}
		}
		if (status < 0)
			continue;
		if (status & pts_eos)
			eos = 1;
		b.ninsn = 0;
		status = pt_blk_next(d, &b, sizeof(b));
		if (status >= 0 && (status & pts_eos))
			eos = 1;
		if (b.ninsn) {
			seq_block(out, b.ip, b.end_ip, b.ninsn,
				  b.mode == ptem_32bit	 ? PTD_MODE_32
				  : b.mode == ptem_16bit ? PTD_MODE_16
							 : PTD_MODE_64);
			have_item = 1;
		}
		pt_blk_get_offset(d, &off);
		if (off != last_off) {
			last_off = off;
			still = 0;
		} else if (++still > REF_STUCK) {
			ret = -1;
			break;
		}
	}
	pt_blk_free_decoder(d);
	pt_image_free(img);
	return ret;
}

/* A ptdbg history as the same sequence (events take no number). */
static void from_history(const struct ptd_history *h, struct seq *out)
{
	uint64_t i, n = ptd_history_nitems(h), numbers = 0;

	for (i = 0; i < n; i++) {
		struct ptd_item it;

		if (ptd_history_item(h, i, &it) != 1)
			PTREF_FAIL("a history's item cannot be read");
		if (it.kind == PTD_ITEM_BLOCK) {
			seq_block(out, it.block.ip, it.block.end_ip, it.block.ninsn,
				  ptd_block_mode(&it.block));
			numbers += it.block.ninsn;
		} else if (it.kind == PTD_ITEM_GAP) {
			seq_push(out, GAPBIT | it.reason);
			numbers++;
		}
	}
	if (numbers != ptd_history_count(h))
		PTREF_FAIL("the numbers in a history's items are not its count");
}

#endif
