/*
 * PT synthesis (see ptsynth.h for the outcome -> packet table).  This file
 * owns the packet policy: TNT packing, IP compression against the last IP,
 * the return-compression stack, PSB+ placement, and the user-mode-only
 * enable/disable patterns.  The bit layout of each packet is libipt's
 * encoder's business: every packet goes through pt_enc_next into a small
 * scratch buffer and is then appended to a growable output buffer.
 */
#include "record/ptsynth.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "disasm/disasm.h"
#include "util/error.h"

#define RETSTACK_SIZE 64 /* libipt's pt_retstack holds 64 entries */

struct ptd_ptsynth {
	struct ptd_ptsynth_config cfg;
	struct pt_encoder *enc;
	uint8_t scratch[64];

	uint8_t *buf;
	size_t len, cap;
	size_t last_psb; /* offset of the last PSB in buf (may be "negative" after take) */
	uint64_t since_psb;

	int enabled;
	int have_psb;
	uint64_t last_ip;
	int last_ip_known;
	uint64_t tsc;

	/* Pending TNT bits, oldest in the most significant used bit. */
	uint64_t tnt;
	int ntnt;

	uint64_t retstack[RETSTACK_SIZE];
	int rs_top;   /* index of the next free slot */
	int rs_count; /* live entries, <= RETSTACK_SIZE */
};

static int grow(struct ptd_ptsynth *s, size_t need)
{
	size_t cap;
	uint8_t *p;

	if (s->len + need <= s->cap)
		return 0;
	cap = s->cap ? s->cap : 4096;
	while (cap < s->len + need)
		cap *= 2;
	p = realloc(s->buf, cap);
	if (!p)
		return ptd__err(-ptde_nomem, "out of memory growing the PT buffer to %zu bytes", cap);
	s->buf = p;
	s->cap = cap;
	return 0;
}

static int emit(struct ptd_ptsynth *s, struct pt_packet *pkt)
{
	int n, err;

	err = pt_enc_sync_set(s->enc, 0);
	if (err < 0)
		return ptd__err(-ptde_internal, "pt encoder: %s", pt_errstr(pt_errcode(err)));
	n = pt_enc_next(s->enc, pkt);
	if (n < 0)
		return ptd__err(-ptde_internal, "pt encoder refused packet type %d: %s", pkt->type,
				pt_errstr(pt_errcode(n)));
	err = grow(s, (size_t)n);
	if (err < 0)
		return err;
	memcpy(s->buf + s->len, s->scratch, (size_t)n);
	s->len += (size_t)n;
	s->since_psb += (uint64_t)n;
	return 0;
}

static int emit_simple(struct ptd_ptsynth *s, enum pt_packet_type type)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	return emit(s, &pkt);
}

static int is_sext48(uint64_t ip)
{
	uint64_t hi = ip >> 47;

	return hi == 0 || hi == 0x1ffff;
}

/* Chooses the shortest IP compression the decoder can undo with its last IP. */
static enum pt_ip_compression choose_ipc(const struct ptd_ptsynth *s, uint64_t ip)
{
	if (s->last_ip_known) {
		if ((ip >> 16) == (s->last_ip >> 16))
			return pt_ipc_update_16;
		if ((ip >> 32) == (s->last_ip >> 32))
			return pt_ipc_update_32;
	}
	if (is_sext48(ip))
		return pt_ipc_sext_48;
	if (s->last_ip_known && (ip >> 48) == (s->last_ip >> 48))
		return pt_ipc_update_48;
	return pt_ipc_full;
}

static int emit_ip(struct ptd_ptsynth *s, enum pt_packet_type type, uint64_t ip, int suppressed)
{
	struct pt_packet pkt;
	int err;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	if (suppressed) {
		pkt.payload.ip.ipc = pt_ipc_suppressed;
	} else {
		pkt.payload.ip.ipc = choose_ipc(s, ip);
		pkt.payload.ip.ip = ip;
	}
	err = emit(s, &pkt);
	if (err < 0)
		return err;
	if (!suppressed) {
		s->last_ip = ip;
		s->last_ip_known = 1;
	}
	return 0;
}

static int emit_mode_exec(struct ptd_ptsynth *s)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_mode;
	pkt.payload.mode.leaf = pt_mol_exec;
	pkt.payload.mode.bits.exec = pt_set_exec_mode(s->cfg.exec_mode == 1   ? ptem_32bit
						      : s->cfg.exec_mode == 2 ? ptem_16bit
									      : ptem_64bit);
	return emit(s, &pkt);
}

static int emit_tsc(struct ptd_ptsynth *s)
{
	struct pt_packet pkt;

	if (!s->cfg.tsc)
		return 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tsc;
	pkt.payload.tsc.tsc = s->tsc & ((1ull << 56) - 1);
	return emit(s, &pkt);
}

static int flush_tnt(struct ptd_ptsynth *s)
{
	struct pt_packet pkt;
	int err;

	if (!s->ntnt)
		return 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = s->ntnt <= 6 ? ppt_tnt_8 : ppt_tnt_64;
	pkt.payload.tnt.bit_size = (uint8_t)s->ntnt;
	pkt.payload.tnt.payload = s->tnt;
	err = emit(s, &pkt);
	if (err < 0)
		return err;
	s->tnt = 0;
	s->ntnt = 0;
	return 0;
}

static int add_tnt(struct ptd_ptsynth *s, int taken)
{
	int max = s->cfg.tnt64 ? 47 : 6;

	s->tnt = (s->tnt << 1) | (taken ? 1 : 0);
	s->ntnt++;
	if (s->ntnt >= max)
		return flush_tnt(s);
	return 0;
}

static void retstack_clear(struct ptd_ptsynth *s)
{
	s->rs_top = 0;
	s->rs_count = 0;
}

static void retstack_push(struct ptd_ptsynth *s, uint64_t ret)
{
	s->retstack[s->rs_top] = ret;
	s->rs_top = (s->rs_top + 1) % RETSTACK_SIZE;
	if (s->rs_count < RETSTACK_SIZE)
		s->rs_count++;
}

/* PSB+ with the current ip; the caller made sure TNT may be flushed here. */
static int emit_psb_plus(struct ptd_ptsynth *s, uint64_t ip, int with_fup)
{
	int err;

	err = flush_tnt(s);
	if (err < 0)
		return err;
	s->last_psb = s->len;
	s->since_psb = 0;
	s->last_ip = 0;
	s->last_ip_known = 1; /* PSB resets the decoder's last IP to zero */
	retstack_clear(s);
	err = emit_simple(s, ppt_psb);
	if (!err)
		err = emit_tsc(s);
	if (!err)
		err = emit_mode_exec(s);
	if (!err && with_fup)
		err = emit_ip(s, ppt_fup, ip, 0);
	if (!err)
		err = emit_simple(s, ppt_psbend);
	s->have_psb = 1;
	return err;
}

static int maybe_psb(struct ptd_ptsynth *s, uint64_t ip)
{
	if (!s->enabled || s->since_psb < s->cfg.psb_period)
		return 0;
	return emit_psb_plus(s, ip, 1);
}

struct ptd_ptsynth *ptd_ptsynth_alloc(const struct ptd_ptsynth_config *cfg)
{
	struct ptd_ptsynth *s;
	struct pt_config pc;

	s = calloc(1, sizeof(*s));
	if (!s) {
		ptd__err(-ptde_nomem, "out of memory allocating the PT synthesizer");
		return NULL;
	}
	if (cfg) {
		s->cfg = *cfg;
	} else {
		s->cfg.ret_compression = 1;
	}
	if (!s->cfg.psb_period)
		s->cfg.psb_period = 4096;
	if (!s->cfg.family) {
		s->cfg.family = 6;
		s->cfg.model = 0x8e;
		s->cfg.stepping = 9;
	}
	pt_config_init(&pc);
	pc.begin = s->scratch;
	pc.end = s->scratch + sizeof(s->scratch);
	s->enc = pt_alloc_encoder(&pc);
	if (!s->enc) {
		free(s);
		ptd__err(-ptde_nomem, "cannot allocate a libipt encoder");
		return NULL;
	}
	return s;
}

void ptd_ptsynth_free(struct ptd_ptsynth *s)
{
	if (!s)
		return;
	pt_free_encoder(s->enc);
	free(s->buf);
	free(s);
}

/* Runs @err-returning packet code transactionally: on failure the buffer
 * length and state are rolled back. */
#define TXN_BEGIN(s)                                                                               \
	struct ptd_ptsynth _save = *(s);                                                           \
	int err
#define TXN_END(s)                                                                                 \
	do {                                                                                       \
		if (err < 0) {                                                                     \
			uint8_t *_b = (s)->buf;                                                    \
			size_t _c = (s)->cap;                                                      \
			*(s) = _save;                                                              \
			(s)->buf = _b;                                                             \
			(s)->cap = _c;                                                             \
		}                                                                                  \
		return err;                                                                        \
	} while (0)

static int enable_at(struct ptd_ptsynth *s, uint64_t ip)
{
	int err;

	err = emit_mode_exec(s);
	if (!err)
		err = emit_tsc(s);
	if (!err)
		err = emit_ip(s, ppt_tip_pge, ip, 0);
	if (!err)
		s->enabled = 1;
	return err;
}

static int disable(struct ptd_ptsynth *s)
{
	int err = emit_ip(s, ppt_tip_pgd, 0, 1);

	if (!err) {
		s->enabled = 0;
		retstack_clear(s);
	}
	return err;
}

int ptd_ptsynth_begin(struct ptd_ptsynth *s, uint64_t ip)
{
	if (!s || !ip)
		return ptd__err(-ptde_invalid, "ptsynth begin: %s", s ? "zero ip" : "no synthesizer");
	if (s->enabled)
		return ptd__err(-ptde_invalid, "ptsynth begin: tracing is already enabled");
	TXN_BEGIN(s);
	s->tsc++;
	err = 0;
	if (!s->have_psb || s->since_psb >= s->cfg.psb_period || s->cfg.psb_on_begin)
		err = emit_psb_plus(s, 0, 0);
	if (!err)
		err = enable_at(s, ip);
	TXN_END(s);
}

static int check_enabled(struct ptd_ptsynth *s, const char *what)
{
	if (!s)
		return ptd__err(-ptde_invalid, "ptsynth %s: no synthesizer", what);
	if (!s->enabled)
		return ptd__err(-ptde_invalid, "ptsynth %s: tracing is disabled", what);
	return 0;
}

int ptd_ptsynth_cond(struct ptd_ptsynth *s, int taken, uint64_t next_ip)
{
	int e = check_enabled(s, "cond");

	if (e < 0)
		return e;
	TXN_BEGIN(s);
	s->tsc++;
	err = add_tnt(s, taken);
	if (!err)
		err = maybe_psb(s, next_ip);
	TXN_END(s);
}

int ptd_ptsynth_call(struct ptd_ptsynth *s, uint64_t ret_addr)
{
	int e = check_enabled(s, "call");

	if (e < 0)
		return e;
	if (s->cfg.ret_compression)
		retstack_push(s, ret_addr);
	return 0;
}

int ptd_ptsynth_icall(struct ptd_ptsynth *s, uint64_t ret_addr, uint64_t target)
{
	int e = check_enabled(s, "icall");

	if (e < 0)
		return e;
	TXN_BEGIN(s);
	s->tsc++;
	err = flush_tnt(s);
	if (!err)
		err = emit_ip(s, ppt_tip, target, 0);
	if (!err && s->cfg.ret_compression)
		retstack_push(s, ret_addr);
	if (!err)
		err = maybe_psb(s, target);
	TXN_END(s);
}

int ptd_ptsynth_indirect(struct ptd_ptsynth *s, uint64_t target)
{
	int e = check_enabled(s, "indirect");

	if (e < 0)
		return e;
	TXN_BEGIN(s);
	s->tsc++;
	err = flush_tnt(s);
	if (!err)
		err = emit_ip(s, ppt_tip, target, 0);
	if (!err)
		err = maybe_psb(s, target);
	TXN_END(s);
}

int ptd_ptsynth_ret(struct ptd_ptsynth *s, uint64_t target)
{
	int e = check_enabled(s, "ret");

	if (e < 0)
		return e;
	TXN_BEGIN(s);
	s->tsc++;
	if (s->cfg.ret_compression && s->rs_count > 0) {
		int top = (s->rs_top + RETSTACK_SIZE - 1) % RETSTACK_SIZE;

		if (s->retstack[top] == target) {
			s->rs_top = top;
			s->rs_count--;
			err = add_tnt(s, 1);
			if (!err)
				err = maybe_psb(s, target);
			TXN_END(s);
		}
	}
	err = flush_tnt(s);
	if (!err)
		err = emit_ip(s, ppt_tip, target, 0);
	if (!err)
		err = maybe_psb(s, target);
	TXN_END(s);
}

int ptd_ptsynth_syscall(struct ptd_ptsynth *s, uint64_t resume_ip)
{
	int e = check_enabled(s, "syscall");

	if (e < 0)
		return e;
	TXN_BEGIN(s);
	s->tsc++;
	err = flush_tnt(s);
	if (!err)
		err = disable(s);
	if (!err && resume_ip) {
		if (s->since_psb >= s->cfg.psb_period)
			err = emit_psb_plus(s, 0, 0);
		if (!err)
			err = enable_at(s, resume_ip);
	}
	TXN_END(s);
}

int ptd_ptsynth_async(struct ptd_ptsynth *s, uint64_t from_ip, uint64_t target)
{
	int e = check_enabled(s, "async");

	if (e < 0)
		return e;
	if (!from_ip || !target)
		return ptd__err(-ptde_invalid, "ptsynth async: zero ip");
	TXN_BEGIN(s);
	s->tsc++;
	err = flush_tnt(s);
	/* A PSB+ due goes before the FUP: between the disable and the
	 * enable it would part the signal from where it interrupted. */
	if (!err)
		err = maybe_psb(s, from_ip);
	if (!err)
		err = emit_ip(s, ppt_fup, from_ip, 0);
	if (!err)
		err = disable(s);
	if (!err)
		err = enable_at(s, target);
	TXN_END(s);
}

int ptd_ptsynth_leave(struct ptd_ptsynth *s, uint64_t target)
{
	int e = check_enabled(s, "leave");

	if (e < 0)
		return e;
	if (!target)
		return ptd__err(-ptde_invalid, "ptsynth leave: zero ip");
	TXN_BEGIN(s);
	s->tsc++;
	err = flush_tnt(s);
	if (!err)
		err = emit_ip(s, ppt_tip_pgd, target, 0);
	if (!err) {
		s->enabled = 0;
		retstack_clear(s);
	}
	TXN_END(s);
}

int ptd_ptsynth_enter(struct ptd_ptsynth *s, uint64_t ip)
{
	if (!s || !ip)
		return ptd__err(-ptde_invalid, "ptsynth enter: %s",
				s ? "zero ip" : "no synthesizer");
	if (s->enabled)
		return ptd__err(-ptde_invalid, "ptsynth enter: tracing is already enabled");
	TXN_BEGIN(s);
	s->tsc++;
	err = 0;
	if (s->since_psb >= s->cfg.psb_period)
		err = emit_psb_plus(s, ip, s->cfg.fup_pge);
	if (!err)
		err = enable_at(s, ip);
	TXN_END(s);
}

int ptd_ptsynth_overflow(struct ptd_ptsynth *s, uint64_t resume_ip)
{
	int e = check_enabled(s, "overflow");

	if (e < 0)
		return e;
	if (!resume_ip)
		return ptd__err(-ptde_invalid, "ptsynth overflow: zero ip");
	TXN_BEGIN(s);
	s->tsc++;
	/* Hardware loses whatever it had not written; the bits already
	 * known here were "written" before the buffer filled. */
	err = flush_tnt(s);
	if (!err)
		err = emit_simple(s, ppt_ovf);
	if (!err) {
		/* Do not rely on the decoder's idea of the last IP after OVF. */
		s->last_ip_known = 0;
		retstack_clear(s);
		err = emit_ip(s, ppt_fup, resume_ip, 0);
	}
	TXN_END(s);
}

int ptd_ptsynth_end(struct ptd_ptsynth *s, uint64_t ip)
{
	if (!s)
		return ptd__err(-ptde_invalid, "ptsynth end: no synthesizer");
	if (!s->enabled)
		return 0;
	if (!ip)
		return ptd__err(-ptde_invalid, "ptsynth end: zero ip");
	TXN_BEGIN(s);
	err = flush_tnt(s);
	if (!err)
		err = emit_ip(s, ppt_fup, ip, 0);
	if (!err)
		err = disable(s);
	TXN_END(s);
}

int ptd_ptsynth_step(struct ptd_ptsynth *s, const struct ptd_insn_info *insn, uint64_t next_ip)
{
	uint64_t fall;

	if (!s || !insn)
		return ptd__err(-ptde_invalid, "ptsynth step: no synthesizer or instruction");
	fall = insn->ip + insn->len;
	switch (insn->iclass) {
	case PTD_IC_COND_JUMP:
		return ptd_ptsynth_cond(s, next_ip != fall, next_ip);
	case PTD_IC_CALL:
		if (insn->flags & PTD_INSN_INDIRECT)
			return ptd_ptsynth_icall(s, fall, next_ip);
		return ptd_ptsynth_call(s, fall);
	case PTD_IC_RET:
		return ptd_ptsynth_ret(s, next_ip);
	case PTD_IC_JUMP:
		if (insn->flags & PTD_INSN_INDIRECT)
			return ptd_ptsynth_indirect(s, next_ip);
		return 0;
	case PTD_IC_FAR_JUMP:
	case PTD_IC_FAR_RET:
		return ptd_ptsynth_indirect(s, next_ip);
	case PTD_IC_FAR_CALL:
		return ptd_ptsynth_syscall(s, next_ip);
	default:
		return 0;
	}
}

void ptd_ptsynth_set_tsc(struct ptd_ptsynth *s, uint64_t tsc)
{
	if (s)
		s->tsc = tsc;
}

const uint8_t *ptd_ptsynth_data(const struct ptd_ptsynth *s, size_t *size)
{
	if (size)
		*size = s ? s->len : 0;
	return s ? s->buf : NULL;
}

int ptd_ptsynth_flush(struct ptd_ptsynth *s)
{
	if (!s)
		return ptd__err(-ptde_invalid, "ptsynth flush: no synthesizer");
	TXN_BEGIN(s);
	err = flush_tnt(s);
	TXN_END(s);
}

uint8_t *ptd_ptsynth_take(struct ptd_ptsynth *s, size_t *size)
{
	uint8_t *b;

	if (size)
		*size = 0;
	if (!s || !s->len)
		return NULL;
	b = s->buf;
	if (size)
		*size = s->len;
	s->buf = NULL;
	s->len = 0;
	s->cap = 0;
	return b;
}

int ptd_ptsynth_enabled(const struct ptd_ptsynth *s)
{
	return s ? s->enabled : 0;
}

void ptd_ptsynth_cpu(const struct ptd_ptsynth *s, uint16_t *family, uint8_t *model,
		     uint8_t *stepping)
{
	if (family)
		*family = s ? s->cfg.family : 0;
	if (model)
		*model = s ? s->cfg.model : 0;
	if (stepping)
		*stepping = s ? s->cfg.stepping : 0;
}
