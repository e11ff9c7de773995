/*
 * libFuzzer target for the rule for PT (docs: ARCHITECTURE.md, "History"):
 * whatever ptdbg does to be fast (runs split at clean PSBs and the state
 * carried between them, lazy parts decoded again on demand, parallel
 * batches, the decode fast path), its history equals what ONE continuous
 * libipt block decode of the same bytes gives, from the first sync to the
 * end, with gaps counted as gdb's record btrace counts them.  Any
 * difference aborts.  Built by make fuzz (build/fuzz/fuzz-ptcont), run
 * briefly by tests/integration/fuzz-ptcont.sh.
 *
 * An input is a PT stream over the small program of tests/unit/ptwalk.h
 * (64-bit code at PW_BASE) and a little 16-bit code at LOW16:
 *  - starting with 0x02 (a PSB's first byte: the traces gen-seeds
 *    synthesizes), the bytes themselves;
 *  - else a list of packet operations, written with libipt's encoder:
 *    PSB+ with or without FUP or MODE.Exec, a PSB+ directly followed by
 *    TIP.PGE, empty segments, MODE.Exec for 16-, 32- and 64-bit code,
 *    TNT, TIP, TIP.PGE/TIP.PGD pairs, FUP, OVF, PAD and raw bytes, so the
 *    fuzzer reaches the states a run boundary has to carry.
 *
 * Compared, instruction by instruction (address and mode) and gap by gap
 * (kind): the whole-buffer decode (without gdb's "disabled" gaps, and
 * taking the stream as a live recording's chunk: no gap for an error
 * after the trace ran out, see REF_CHUNK_END in ptref.h), and
 * ptd_pt_trace_history serial and with 2 threads, in runs of the default
 * size, of one PSB segment and of 300 bytes, stored and lazy (parts as
 * small as one segment), with the fast path on and off, and the --load
 * layout (the newest 1, 2 and 3 segments decoded alone, the rest lazily in
 * front; PTCONT_NEWEST=k: only k).  The stored histories also have the
 * same items.  PTCONT_TIMING=1 adds timing packets (TSC, TMA, CBR, MTC,
 * CYC) as hardware writes them (see timing_on); PTCONT_CPU=6/0x4e decodes
 * both sides with that cpu's errata; PTCONT_HOLE=0x80/0x86 takes those
 * bytes of the program out of the image.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "decode/fastpt.h"
#include "decode/image.h"
#include "decode/pt.h"
#include "history/history.h"
#include "util/error.h"
#define PTREF_FAIL(msg) (fprintf(stderr, "fuzz-ptcont: %s\n", msg), abort())
#include "../unit/ptref.h"

static void same_seq(const struct seq *exp, const struct seq *got, const char *what)
{
	if (getenv("PTCONT_DUMP")) { /* both sequences, side by side */
		for (size_t i = 0; i < exp->n || i < got->n; i++)
			fprintf(stderr, "%5zu %18llx %18llx%s\n", i + 1,
				i < exp->n ? (unsigned long long)exp->v[i] : 0ull,
				i < got->n ? (unsigned long long)got->v[i] : 0ull,
				i < exp->n && i < got->n && exp->v[i] == got->v[i] ? "" : "  <");
	}
	for (size_t i = 0; i < exp->n && i < got->n; i++)
		if (exp->v[i] != got->v[i]) {
			fprintf(stderr,
				"fuzz-ptcont: %s: number %zu: reference 0x%llx, ptdbg 0x%llx\n",
				what, i + 1, (unsigned long long)exp->v[i],
				(unsigned long long)got->v[i]);
			abort();
		}
	if (exp->n != got->n) {
		fprintf(stderr, "fuzz-ptcont: %s: the reference has %zu numbers, ptdbg %zu\n",
			what, exp->n, got->n);
		abort();
	}
}

/* Same items, flags included (an overflow's offset is where libipt's
 * reader was: not compared). */
static void same_items(const struct ptd_history *a, const struct ptd_history *b,
		       const char *what)
{
	uint64_t i, n = ptd_history_nitems(a);

	if (n != ptd_history_nitems(b)) {
		fprintf(stderr, "fuzz-ptcont: %s: %llu items, expected %llu\n", what,
			(unsigned long long)ptd_history_nitems(b), (unsigned long long)n);
		abort();
	}
	for (i = 0; i < n; i++) {
		struct ptd_item x, y;

		if (ptd_history_item(a, i, &x) != 1 || ptd_history_item(b, i, &y) != 1)
			abort();
		if (x.kind != y.kind || x.reason != y.reason || x.number != y.number ||
		    x.block.ip != y.block.ip ||
		    (x.kind == PTD_ITEM_GAP && x.reason != PTD_GAP_OVERFLOW && x.arg != y.arg) ||
		    (x.kind == PTD_ITEM_EVENT && x.arg != y.arg) ||
		    (x.kind == PTD_ITEM_BLOCK &&
		     (x.block.end_ip != y.block.end_ip || x.block.ninsn != y.block.ninsn ||
		      x.block.iclass != y.block.iclass || x.block.flags != y.block.flags))) {
			fprintf(stderr,
				"fuzz-ptcont: %s: item %llu differs: kind %d/%d number %llu/%llu "
				"ip 0x%llx/0x%llx flags 0x%x/0x%x class %d/%d\n",
				what, (unsigned long long)i, x.kind, y.kind,
				(unsigned long long)x.number, (unsigned long long)y.number,
				(unsigned long long)x.block.ip, (unsigned long long)y.block.ip,
				x.block.flags, y.block.flags, x.block.iclass, y.block.iclass);
			abort();
		}
	}
}

/* ---- streams from packet operations ---- */

struct enc {
	uint8_t buf[1 << 16];
	struct pt_encoder *e;
	int bad; /* the encoder refused something: the stream ends there */
};

/*
 * PTCONT_TIMING=1: timing packets where hardware writes them (perf's
 * default intel_pt config has TSC and MTC on, CYC with cyc=1), which the
 * streams above otherwise never have: TSC, TMA and CBR right after each
 * PSB (a PSB+ as real captures have it; now and then a MODE.TSX outside a
 * transaction or a PIP too, as a cpu with TSX or kernel tracing has) and, before any other packet,
 * now and then an MTC, a CYC, a TSC (with its TMA) or a CBR: between
 * MODE.Exec and TIP.PGE, FUP and TIP.PGD or TIP, OVF and FUP, in the
 * middle of TNT runs.  Where they go follows from the input (trng, seeded
 * from its bytes), so each input is one stream and the fuzzer moves them.
 */
static int timing_on;
static uint64_t trng;
static int in_psb; /* (between PSB and PSBEND: only what PSB+ has) */

static unsigned trand(void)
{
	trng = trng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(trng >> 33);
}

static void enc_raw(struct enc *x, const struct pt_packet *p)
{
	if (!x->bad && pt_enc_next(x->e, p) < 0)
		x->bad = 1;
}

static void timing_pkt(struct enc *x, unsigned kind)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	switch (kind) {
	case 0:
		p.type = ppt_mtc;
		p.payload.mtc.ctc = (uint8_t)trand();
		break;
	case 1:
		p.type = ppt_cyc;
		p.payload.cyc.value = trand() % 3 ? trand() & 0x1f : trand();
		break;
	case 2:
		p.type = ppt_tsc;
		p.payload.tsc.tsc = ((uint64_t)trand() << 24) | (trand() & 0xffffff);
		enc_raw(x, &p);
		memset(&p, 0, sizeof(p));
		p.type = ppt_tma;
		p.payload.tma.ctc = (uint16_t)trand();
		p.payload.tma.fc = (uint16_t)(trand() & 0x1ff);
		break;
	default:
		p.type = ppt_cbr;
		p.payload.cbr.ratio = (uint8_t)(1 + trand() % 60);
		break;
	}
	enc_raw(x, &p);
}

static void put(struct enc *x, const struct pt_packet *p)
{
	if (timing_on && !in_psb && p->type != ppt_psbend && trand() % 8 < 3)
		timing_pkt(x, trand() % 4);
	enc_raw(x, p);
	if (p->type == ppt_psb || p->type == ppt_psbend)
		in_psb = p->type == ppt_psb;
	if (timing_on && p->type == ppt_psb) { /* (PSB+: TSC, TMA, CBR first) */
		struct pt_packet q;

		if (trand() % 4)
			timing_pkt(x, 2);
		if (trand() % 4)
			timing_pkt(x, 3);
		memset(&q, 0, sizeof(q));
		switch (trand() % 8) {
		case 0: /* MODE.TSX, outside a transaction (a cpu with TSX) */
			q.type = ppt_mode;
			q.payload.mode.leaf = pt_mol_tsx;
			enc_raw(x, &q);
			break;
		case 1: /* PIP (its cr3) */
			q.type = ppt_pip;
			q.payload.pip.cr3 = 0x1234000;
			enc_raw(x, &q);
			break;
		}
	}
}

static void pkt(struct enc *x, enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	put(x, &p);
}

/* IP packet: @ipc as given (suppressed: no ip). */
static void ippkt(struct enc *x, enum pt_packet_type type, enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ipc == pt_ipc_suppressed ? 0 : ip;
	put(x, &p);
}

static void mode_exec(struct enc *x, enum pt_exec_mode m)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(m);
	put(x, &p);
}

static void tnt(struct enc *x, int nbits, uint64_t bits)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = nbits > 6 ? ppt_tnt_64 : ppt_tnt_8;
	p.payload.tnt.bit_size = (uint8_t)nbits;
	p.payload.tnt.payload = bits & ((1ull << nbits) - 1);
	put(x, &p);
}

/* Addresses the operations pick from: the program's instructions (and a
 * few places inside them), and the 16-bit code. */
static const uint64_t ips[] = {
	PW_BASE + 0x00, PW_BASE + 0x01, PW_BASE + 0x03, PW_BASE + 0x08, PW_BASE + 0x0a,
	PW_BASE + 0x0c, PW_BASE + 0x0e, PW_BASE + 0x30, PW_BASE + 0x33, PW_BASE + 0x40,
	PW_BASE + 0x42, PW_BASE + 0x60, PW_BASE + 0x61, PW_BASE + 0x63, PW_BASE + 0x68,
	PW_BASE + 0x69, PW_BASE + 0x80, PW_BASE + 0x81, PW_BASE + 0x83, PW_BASE + 0x85,
	PW_BASE + 0xa0, PW_BASE + 0xa1, PW_BASE + 0xa6, PW_BASE + 0xa8, LOW16 + 0x0,
	LOW16 + 0x1,	LOW16 + 0x2,	LOW16 + 0x4,	LOW16 + 0x7,	LOW16 + 0x9,
	LOW16 + 0xa,	PW_BASE + 0x31,
};
#define NIPS (sizeof(ips) / sizeof(ips[0]))

static const enum pt_exec_mode modes[] = {ptem_64bit, ptem_32bit, ptem_16bit, ptem_64bit};

struct ops {
	const uint8_t *p, *e;
};

static unsigned take(struct ops *o)
{
	return o->p < o->e ? *o->p++ : 0;
}

/* An ip and its compression from one byte: mostly a full address, one
 * time in eight the low 16 bits only (against the last ip). */
static void ip_of(unsigned v, enum pt_ip_compression *ipc, uint64_t *ip)
{
	*ip = ips[(v & 0x7f) % NIPS];
	*ipc = (v & 0x80) && (v & 7) == 7 ? pt_ipc_update_16 : pt_ipc_sext_48;
}

static void psb_plus(struct enc *x, int mode, int fup, unsigned ipv)
{
	enum pt_ip_compression ipc;
	uint64_t ip;

	pkt(x, ppt_psb);
	if (mode >= 0)
		mode_exec(x, modes[mode & 3]);
	if (fup) {
		ip_of(ipv, &ipc, &ip);
		ippkt(x, ppt_fup, ipc, ip);
	}
	pkt(x, ppt_psbend);
}

/* Writes the stream the operations in @data say; returns its size. */
static size_t from_ops(struct enc *x, const uint8_t *data, size_t size)
{
	struct pt_config cfg;
	struct ops o = {data, data + size};
	uint64_t off = 0;
	enum pt_ip_compression ipc;
	uint64_t ip;

	pt_config_init(&cfg);
	cfg.begin = x->buf;
	cfg.end = x->buf + sizeof(x->buf) - 64;
	x->bad = 0;
	x->e = pt_alloc_encoder(&cfg);
	if (!x->e)
		abort();
	/* (a start: PSB+ without FUP, then what the operations say) */
	psb_plus(x, 0, 0, 0);
	while (o.p < o.e && !x->bad) {
		unsigned op = take(&o), a = take(&o);

		switch (op % 20) {
		case 0: /* PSB+ with MODE.Exec and FUP */
			psb_plus(x, (int)(a & 3), 1, take(&o));
			break;
		case 1: /* PSB+ without FUP (tracing disabled) */
			psb_plus(x, (int)(a & 3), 0, 0);
			break;
		case 2: /* PSB+ with FUP directly followed by TIP.PGE */
			psb_plus(x, (int)(a & 3), 1, take(&o));
			if (a & 4)
				mode_exec(x, modes[(a >> 3) & 3]);
			ip_of(take(&o), &ipc, &ip);
			ippkt(x, ppt_tip_pge, ipc, ip);
			break;
		case 3: /* PSB+ without MODE.Exec */
			psb_plus(x, -1, a & 1, take(&o));
			break;
		case 4: /* an empty segment: PSB+ then PSB+ */
			psb_plus(x, (int)(a & 3), (a >> 2) & 1, take(&o));
			break;
		case 5: /* MODE.Exec */
			mode_exec(x, modes[a & 3]);
			break;
		case 6:
		case 7:
		case 8: /* TNT */
			tnt(x, 1 + (int)(a % 6), take(&o));
			break;
		case 9:
		case 10: /* TIP */
			ip_of(a, &ipc, &ip);
			ippkt(x, ppt_tip, ipc, ip);
			break;
		case 11: /* TIP.PGD (ip or none), then maybe MODE.Exec and TIP.PGE */
			ip_of(a, &ipc, &ip);
			ippkt(x, ppt_tip_pgd, a & 0x40 ? pt_ipc_suppressed : ipc, ip);
			if (a & 0x20) {
				unsigned b = take(&o);

				if (b & 0x80)
					mode_exec(x, modes[b & 3]);
				ip_of(b >> 2, &ipc, &ip);
				ippkt(x, ppt_tip_pge, ipc, ip);
			}
			break;
		case 12: /* TIP.PGE */
			ip_of(a, &ipc, &ip);
			ippkt(x, ppt_tip_pge, ipc, ip);
			break;
		case 13: /* FUP + TIP.PGD: tracing stops asynchronously */
			ip_of(a, &ipc, &ip);
			ippkt(x, ppt_fup, ipc, ip);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			break;
		case 14: /* FUP + TIP: an asynchronous branch */
			ip_of(a, &ipc, &ip);
			ippkt(x, ppt_fup, ipc, ip);
			ip_of(take(&o), &ipc, &ip);
			ippkt(x, ppt_tip, ipc, ip);
			break;
		case 15: /* OVF, then FUP (tracing on) or nothing */
			pkt(x, ppt_ovf);
			if (a & 1) {
				ip_of(a >> 1, &ipc, &ip);
				ippkt(x, ppt_fup, ipc, ip);
			}
			break;
		case 16: /* a lone FUP */
			ip_of(a, &ipc, &ip);
			ippkt(x, ppt_fup, ipc, ip);
			break;
		case 17: /* PAD */
			pkt(x, ppt_pad);
			break;
		case 18: /* a raw byte */
			if (pt_enc_get_offset(x->e, &off) == 0 && off < sizeof(x->buf) - 64) {
				x->buf[off] = (uint8_t)a;
				pt_enc_sync_set(x->e, off + 1);
			}
			break;
		default: /* a longer TNT */
			tnt(x, 1 + (int)(a % 47), ((uint64_t)take(&o) << 40) | ((uint64_t)take(&o) << 20) |
						    take(&o));
			break;
		}
	}
	pt_enc_get_offset(x->e, &off);
	pt_free_encoder(x->e);
	return (size_t)off;
}

/*
 * Well-formed streams: each input byte picks a round of execution of the
 * program (all of them start and end with tracing disabled), and where
 * PSB+ go in it: between rounds (after the next round's MODE.Exec, or
 * two in a row: an empty segment), at the points inside a round where the
 * ip is known (with that FUP), or as a PSB+ whose FUP is directly followed
 * by TIP.PGE.  Every such stream is a valid trace, as hardware writes it.
 */
static void vpsb(struct enc *x, enum pt_exec_mode m, uint64_t fup)
{
	pkt(x, ppt_psb);
	mode_exec(x, m);
	if (fup)
		ippkt(x, ppt_fup, pt_ipc_sext_48, fup);
	pkt(x, ppt_psbend);
}

static size_t from_valid(struct enc *x, const uint8_t *data, size_t size)
{
	struct pt_config cfg;
	uint64_t off = 0;
	const uint64_t B = PW_BASE;

	pt_config_init(&cfg);
	cfg.begin = x->buf;
	cfg.end = x->buf + sizeof(x->buf) - 64;
	x->bad = 0;
	x->e = pt_alloc_encoder(&cfg);
	if (!x->e)
		abort();
	vpsb(x, ptem_64bit, 0);
	for (size_t i = 0; i < size && !x->bad; i++) {
		unsigned r = data[i], at = r >> 3; /* bits 3..7: where PSB+ go */
		enum pt_exec_mode m = r % 7 == 1 ? ptem_32bit : ptem_64bit;

		if (at & 1) { /* disabled, between rounds (empty segments) */
			vpsb(x, r % 7 == 2 ? ptem_16bit : m, 0);
			if (at & 2)
				vpsb(x, r % 7 == 2 ? ptem_16bit : m, 0);
		}
		switch (r % 7) {
		case 0:
		case 1: /* main into f and g, 64- or 32-bit code */
			mode_exec(x, m);
			if (at & 4) /* right after the MODE.Exec */
				vpsb(x, m, 0);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x00);
			/* 00; 01 jnz taken; 30 (32-bit: 30 dec, 31 mov); 33 jmp;
			 * 03 call f; 60; 61 jnz taken; 68; 69 ret (compressed);
			 * 08 call *rax */
			tnt(x, 3, 0x7);
			ippkt(x, ppt_tip, pt_ipc_sext_48, B + 0xa0);
			if (at & 8)
				vpsb(x, m, B + 0xa0);
			/* a0; a1 call g; 80; 81 jz taken; 85 ret -> 0c (TIP) */
			tnt(x, 1, 0x1);
			ippkt(x, ppt_tip, pt_ipc_sext_48, B + 0x0c);
			if (at & 16)
				vpsb(x, m, B + 0x0c);
			tnt(x, 1, 0x1); /* 0c jz taken -> 00 */
			ippkt(x, ppt_fup, pt_ipc_sext_48, B + 0x00);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			break;
		case 2: /* the 16-bit loop */
			mode_exec(x, ptem_16bit);
			if (at & 4)
				vpsb(x, ptem_16bit, 0);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, LOW16);
			tnt(x, 3, 0x6); /* jnz taken twice, then not; call 2009 */
			if (at & 8)
				vpsb(x, ptem_16bit, LOW16 + 0xa);
			ippkt(x, ppt_tip, pt_ipc_sext_48, LOW16 + 7); /* ret */
			ippkt(x, ppt_fup, pt_ipc_sext_48, LOW16 + 8);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			break;
		case 3: /* filtered: calls out of the traced range */
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x00);
			tnt(x, 1, 0x1); /* 01 taken; 30; 33; 03 call f: out */
			/* (a cpu with SKL014 may leave out the ip of a TIP.PGD
			 * after a direct branch) */
			if (ptref_errata.skl014 && (trand() & 1))
				ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			else
				ippkt(x, ppt_tip_pgd, pt_ipc_sext_48, B + 0x60);
			if (ptref_errata.apl12 && trand() % 3 == 0) {
				/* (APL12: an overflow out of the range, and a FUP) */
				pkt(x, ppt_ovf);
				ippkt(x, ppt_fup, pt_ipc_sext_48, B + 0x68);
			}
			if (at & 4)
				vpsb(x, ptem_64bit, 0);
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x08);
			ippkt(x, ppt_tip_pgd, pt_ipc_sext_48, B + 0xa0); /* call *rax: out */
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x0a);
			if (at & 8)
				vpsb(x, ptem_64bit, B + 0x0a);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0); /* 0a syscall */
			if (at & 16) /* FUP directly followed by TIP.PGE */
				vpsb(x, ptem_64bit, B + 0x0c);
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x0c);
			tnt(x, 1, 0x1);
			ippkt(x, ppt_fup, pt_ipc_sext_48, B + 0x00);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			break;
		case 4: /* an overflow, resuming at 30 */
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x00);
			pkt(x, ppt_ovf);
			if (ptref_errata.apl11 && trand() % 3 == 0) {
				/* (APL11: the overflow as tracing stops) */
				ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
				break;
			}
			/* (SKD010: no FUP after the overflow) */
			if (!ptref_errata.skd010 || trand() % 3)
				ippkt(x, ppt_fup, pt_ipc_sext_48, B + 0x30);
			if (at & 4)
				vpsb(x, ptem_64bit, B + 0x30);
			/* 30; 33 jmp; 03 call f; 60; 61 taken; 68; 69 ret; 08
			 * call *rax -> 80; 81 jz taken; 85 ret -> 0a syscall */
			tnt(x, 2, 0x3);
			ippkt(x, ppt_tip, pt_ipc_sext_48, B + 0x80);
			tnt(x, 2, 0x3);
			if (at & 8)
				vpsb(x, ptem_64bit, B + 0x0a);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			break;
		case 5: /* a signal at 33 (handler at a0), sigreturn back */
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x00);
			tnt(x, 1, 0x1);
			ippkt(x, ppt_fup, pt_ipc_sext_48, B + 0x33);
			ippkt(x, ppt_tip, pt_ipc_sext_48, B + 0xa0);
			if (at & 4)
				vpsb(x, ptem_64bit, B + 0xa0);
			/* a0; a1 call g; 80; 81 jz taken; 85 ret; a6 syscall */
			tnt(x, 2, 0x3);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			if (at & 8)
				vpsb(x, ptem_64bit, 0);
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x33);
			/* 33 jmp; 03 call f; 60; 61 taken; 68; 69 ret; 08 call
			 * *rax -> 60; 61 taken; 68; 69 ret -> 0a syscall */
			tnt(x, 2, 0x3);
			ippkt(x, ppt_tip, pt_ipc_sext_48, B + 0x60);
			tnt(x, 2, 0x3);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			break;
		default: /* a syscall that resumes where it stopped */
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x08);
			/* 08 call *rax -> 80; 81 jz taken; 85 ret; 0a syscall */
			ippkt(x, ppt_tip, pt_ipc_sext_48, B + 0x80);
			tnt(x, 2, 0x3);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			if (at & 4)
				vpsb(x, ptem_64bit, B + 0x0c);
			mode_exec(x, ptem_64bit);
			ippkt(x, ppt_tip_pge, pt_ipc_sext_48, B + 0x0c);
			tnt(x, 1, 0x1);
			ippkt(x, ppt_fup, pt_ipc_sext_48, B + 0x00);
			ippkt(x, ppt_tip_pgd, pt_ipc_suppressed, 0);
			break;
		}
	}
	pt_enc_get_offset(x->e, &off);
	pt_free_encoder(x->e);
	return (size_t)off;
}

/* ---- ptdbg's histories ---- */

/* A trace history of @buf: runs of @batch bytes (0: the default),
 * @threads, lazy (parts of at most the run size) or stored. */
static struct ptd_history *trace_history(const uint8_t *buf, size_t size, struct ptd_image *img,
					 size_t batch, int threads, int lazy)
{
	struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, size, img, NULL, NULL, 2);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
	struct ptd_history *copy = NULL;

	if (!t || !h)
		abort();
	ptd__pt_set_batch_bytes(batch);
	ptd_pt_trace_set_disabled_gaps(t, 1);
	if (lazy) {
		ptd_pt_trace_set_lazy_history(t, 2);
		ptd__pt_set_store_max(0);
	}
	if (ptd_pt_trace_history(t, h, threads, NULL) < 0) {
		fprintf(stderr, "fuzz-ptcont: trace history: %s\n", ptd_last_error(-1));
		abort();
	}
	ptd__pt_set_batch_bytes(0);
	ptd__pt_set_store_max(PTD_PT_STORE_MAX);
	if (lazy) {
		/* every part decoded again now, while the trace is there */
		copy = ptd_history_alloc(ptd_image_read, img);
		if (!copy || ptd_history_append_history(copy, h) < 0)
			abort();
		ptd_history_free(h);
		h = copy;
	}
	ptd_pt_trace_free(t);
	return h;
}

/* As ptdbg --load builds it: the newest @k segments decoded alone first
 * (each from the state the segment before it ends in), then the lazy
 * history of everything before them put in front. */
static struct ptd_history *load_layout(const uint8_t *buf, size_t size, struct ptd_image *img,
				       size_t k)
{
	struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, size, img, NULL, NULL, 2);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
	struct ptd_history *newer = ptd_history_alloc(ptd_image_read, img);
	struct ptd_history *copy = ptd_history_alloc(ptd_image_read, img);
	size_t nseg, j;

	if (!t || !h || !newer || !copy)
		abort();
	ptd_pt_trace_set_disabled_gaps(t, 1);
	for (j = k; j-- > 0;) {
		const struct ptd_history *sh = ptd_pt_trace_newest(t, j);

		if (!sh)
			continue; /* fewer segments */
		ptd_history_flag_last(newer, ptd_pt_trace_newest_head(t, j));
		if (ptd_history_append_history(newer, sh) < 0)
			abort();
	}
	nseg = ptd_pt_trace_nsegs(t);
	if (nseg < k)
		k = nseg;
	ptd_pt_trace_set_lazy_history(t, 2);
	ptd__pt_set_store_max(0);
	ptd__pt_set_batch_bytes(k == 1 ? 1 : 0);
	/* (in two threads, as ptdbg --load) */
	if (ptd_pt_trace_history_range(t, h, 0, nseg - k, 2, NULL) < 0)
		abort();
	ptd__pt_set_batch_bytes(0);
	ptd__pt_set_store_max(PTD_PT_STORE_MAX);
	if (k)
		ptd_history_flag_last(h, ptd_pt_trace_newest_head(t, k - 1));
	if (ptd_history_prepend(newer, h) < 0 || ptd_history_append_history(copy, newer) < 0)
		abort();
	ptd_history_free(newer);
	ptd_history_free(h);
	ptd_pt_trace_free(t);
	return copy;
}

static void check(const uint8_t *buf, size_t size, struct ptd_image *img)
{
	static const size_t batches[] = {0, 1, 300};
	struct seq ref = {0}, ref_nogaps = {0}, got = {0};
	struct ptd_history *base, *h;
	char what[96];

	/* (ptd_pt_decode serves the chunks of live recordings: there an
	 * error after the trace ran out is the linear tail needing the next
	 * chunk's trace, not a gap; its reference says so, the rest of the
	 * decode is compared as strictly as the trace histories') */
	if (reference(buf, size, REF_GDB_GAPS, &ref) < 0 ||
	    reference(buf, size, REF_CHUNK_END, &ref_nogaps) < 0)
		goto out; /* stuck in a loop of direct branches: not compared */
	h = ptd_history_alloc(ptd_image_read, img);
	if (!h || ptd_pt_decode_history(buf, size, img, h, NULL) < 0)
		abort();
	from_history(h, &got);
	same_seq(&ref_nogaps, &got, "ptd_pt_decode");
	ptd_history_free(h);
	got.n = 0;
	base = trace_history(buf, size, img, 0, 1, 0);
	from_history(base, &got);
	same_seq(&ref, &got, "trace history, serial");
	for (int fast = 1; fast >= 0; fast--) {
		/* (PTCONT_FAST=0 or 1: only that way, to tell which differs) */
		if (getenv("PTCONT_FAST") && atoi(getenv("PTCONT_FAST")) != fast)
			continue;
		ptd__fastpt_force(fast);
		for (size_t bi = 0; bi < sizeof(batches) / sizeof(batches[0]); bi++)
			for (int lazy = 0; lazy < 2; lazy++)
				for (int threads = 1; threads <= 2; threads++) {
					if (fast && !bi && !lazy && threads == 1)
						continue; /* (base) */
					snprintf(what, sizeof(what),
						 "trace history, runs of %zu bytes, %s, %d threads, "
						 "fast path %s",
						 batches[bi], lazy ? "lazy" : "stored", threads,
						 fast ? "on" : "off");
					h = trace_history(buf, size, img, batches[bi], threads,
							  lazy);
					got.n = 0;
					from_history(h, &got);
					same_seq(&ref, &got, what);
					/* (a lazy history does not merge a block into
					 * the one before across parts) */
					if (!lazy)
						same_items(base, h, what);
					ptd_history_free(h);
				}
	}
	ptd__fastpt_force(-1);
	for (size_t k = 1; k <= 3; k++) {
		/* (PTCONT_NEWEST=k: only the newest k segments first) */
		if (getenv("PTCONT_NEWEST") && (size_t)atoi(getenv("PTCONT_NEWEST")) != k)
			continue;
		h = load_layout(buf, size, img, k);
		got.n = 0;
		from_history(h, &got);
		snprintf(what, sizeof(what), "the newest %zu segments first", k);
		same_seq(&ref, &got, what);
		ptd_history_free(h);
	}
	ptd_history_free(base);
out:
	free(ref.v);
	free(ref_nogaps.v);
	free(got.v);
}

/* PTCONT_WRITE=file: the stream an input makes, for a packet dump. */
static void write_stream(const uint8_t *buf, size_t n)
{
	FILE *f;

	if (!getenv("PTCONT_WRITE") || !(f = fopen(getenv("PTCONT_WRITE"), "wb")))
		return;
	fwrite(buf, 1, n, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ptd_image *img;
	static struct enc x;

	if (!img) {
		pw_init_code();
		ptref_lenient = 1; /* random bytes reach what is no instruction */
		img = ptd_image_alloc(code_read, NULL);
		if (!img)
			abort();
		if (getenv("PTCONT_CPU")) {
			/* PTCONT_CPU=FAMILY/MODEL (decimal or 0x): a trace from
			 * that cpu, decoded with libipt's errata for it on both
			 * sides (6/0x4e Skylake: bdm70, skd007, skd010, skd022,
			 * skl014; 6/0x5c Apollo Lake: apl11, apl12 too) */
			struct ptd_cpu cpu = {0};
			char *end;

			cpu.family = (uint16_t)strtoul(getenv("PTCONT_CPU"), &end, 0);
			cpu.model = (uint8_t)(*end == '/' ? strtoul(end + 1, NULL, 0) : 0);
			if (ptd_image_set_cpu(img, &cpu) < 0 ||
			    ptd_cpu_errata(&cpu, &ptref_errata) < 0) {
				fprintf(stderr, "fuzz-ptcont: PTCONT_CPU: libipt does not know cpu %s\n",
					getenv("PTCONT_CPU"));
				abort();
			}
		}
	}
	if (!size)
		return 0;
	timing_on = getenv("PTCONT_TIMING") && atoi(getenv("PTCONT_TIMING"));
	if (getenv("PTCONT_HOLE")) {
		/* PTCONT_HOLE=LO/HI: the program's bytes [LO, HI) (offsets
		 * from PW_BASE) missing from the image on both sides, as in a
		 * capture whose image lacks a library: every entry into
		 * them is a decode error (no memory) and libipt goes on at
		 * the next PSB */
		char *end;

		ptref_hole_lo = PW_BASE + strtoull(getenv("PTCONT_HOLE"), &end, 0);
		ptref_hole_hi = PW_BASE + (*end == '/' ? strtoull(end + 1, NULL, 0) : 0);
		if (ptref_hole_hi <= ptref_hole_lo) {
			fprintf(stderr, "fuzz-ptcont: PTCONT_HOLE=LO/HI, LO < HI\n");
			abort();
		}
	}
	trng = 0x9e3779b97f4a7c15ull;
	in_psb = 0;
	for (size_t i = 0; i < size; i++)
		trng = (trng ^ data[i]) * 0x100000001b3ull;
	if (getenv("PTCONT_VALID")) {
		size_t n = from_valid(&x, data, size);

		write_stream(x.buf, n);
		if (n)
			check(x.buf, n, img);
	} else if (data[0] == 0x02) {
		check(data, size, img);
	} else {
		size_t n = from_ops(&x, data + 1, size - 1);

		write_stream(x.buf, n);
		if (n)
			check(x.buf, n, img);
	}
	return 0;
}
