/*
 * Registers in the recorded past beyond the pc.  A recorder that knows
 * registers (soft) has them all where it trapped; between its traps the
 * stack pointer or the frame pointer still follows exactly from the
 * call-frame information: the canonical frame address (CFA) of a function
 * activation is one value for all of it, so a snapshot anywhere in the
 * same activation gives it (CFA = the register of the CFI rule there +
 * its offset), and the CFI rule at the position gives back rsp or rbp
 * (whichever register the rule names; rbp also while it still holds its
 * value from the entry, when the snapshot's does too).  The rest stays
 * unknown: gdb unwinds with these, it is never told a guess.
 */
#include "session/session_int.h"

#include <stddef.h>
#include <string.h>

#include "record/recorder.h"
#include "symbols/symbols.h"
#include "target/target.h"
#include "util/error.h"

#define BIT(f) (1ull << (offsetof(struct user_regs_struct, f) / 8))
#define ALL_REGS ((1ull << (sizeof(struct user_regs_struct) / 8)) - 1)

/* How many segments of the activation to look through, each way. */
#define MAX_SEGS 64

/* The register of DWARF number @reg in @r (rsp or rbp), or -1. */
static int dwarf_reg(const struct user_regs_struct *r, int reg, uint64_t *v)
{
	if (reg == 7)
		*v = r->rsp;
	else if (reg == 6)
		*v = r->rbp;
	else
		return -1;
	return 0;
}

/* A snapshot in the activation of the instruction at @pos (segment @seg
 * of @calls): the last one at or before @pos in it, else the first after
 * it, segment by segment (the segments of one activation are the stretches
 * between its calls).  Returns 0 with *@q filled. */
static int snapshot(struct ptd_session *s, pid_t tid, const struct ptd_calls *calls,
		    const struct ptd_callseg *seg, uint64_t pos, struct user_regs_struct *q)
{
	const struct ptd_recorder *rec = s->rec;
	const struct ptd_callseg *g;
	uint64_t at;
	int i;

	if (!rec->ops->regs_near)
		return -1;
	for (g = seg, i = 0; g && i < MAX_SEGS; g = g->prev_same ? ptd_calls_get(calls, g->prev_same) : NULL, i++)
		if (rec->ops->regs_near(rec, tid, g == seg ? pos : g->last, q, &at) == 0 &&
		    at >= g->first)
			return 0;
	for (g = seg, i = 0; g && i < MAX_SEGS; g = g->next_same ? ptd_calls_get(calls, g->next_same) : NULL, i++)
		if (rec->ops->regs_near(rec, tid, g->last, q, &at) == 0 &&
		    at >= (g == seg ? pos + 1 : g->first))
			return 0;
	ptd_clear_error();
	return -1;
}

/* rsp and rbp at past position @pos (pc @pc) of the selected thread @tid
 * into @r, their bits into *@known. */
static void past_frame(struct ptd_session *s, pid_t tid, uint64_t pos, uint64_t pc,
		       struct user_regs_struct *r, uint64_t *known)
{
	const struct ptd_calls *calls = ptd_session_calls(s);
	const struct ptd_callseg *seg = calls ? ptd_calls_find(calls, pos) : NULL;
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);
	struct user_regs_struct q;
	int reg_p, reg_q, same_p = 0, same_q = 0;
	int64_t off_p, off_q;
	uint64_t base, cfa;

	if (!seg || seg->is_gap || !sym || !s->rec ||
	    ptd_symbols_cfa_rule(sym, pc, &reg_p, &off_p, &same_p) < 0 ||
	    snapshot(s, tid, calls, seg, pos, &q) < 0 ||
	    ptd_symbols_cfa_rule(sym, q.rip, &reg_q, &off_q, &same_q) < 0 ||
	    dwarf_reg(&q, reg_q, &base) < 0) {
		ptd_clear_error();
		return;
	}
	cfa = base + (uint64_t)off_q;
	if (reg_p == 7) {
		r->rsp = cfa - (uint64_t)off_p;
		*known |= BIT(rsp);
	} else if (reg_p == 6) {
		r->rbp = cfa - (uint64_t)off_p;
		*known |= BIT(rbp);
	}
	if (!(*known & BIT(rbp)) && same_p && same_q) {
		r->rbp = q.rbp;
		*known |= BIT(rbp);
	}
}

int ptd_session_regs_known(struct ptd_session *s, struct user_regs_struct *r, uint64_t *known)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;
	int pc_only = 1, rc;
	uint64_t pos = 0, count = 0;

	if (!s || !r || !known)
		return -ptde_invalid;
	*known = 0;
	rc = ptd_session_regs(s, r, &pc_only);
	if (rc < 0)
		return rc;
	if (!pc_only) {
		*known = ALL_REGS;
		return 0;
	}
	*known = BIT(rip);
	if (!th || s->offline || !ptd_session_alive(s) ||
	    ptd_session_position(s, &pos, &count) < 0 || !pos)
		return 0;
	past_frame(s, th->tid, pos, r->rip, r, known);
	return 0;
}
