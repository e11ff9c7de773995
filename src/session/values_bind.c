/*
 * The session side of values (src/values): binds a ptd_values context to
 * the selected thread at its position -- live registers and memory, or in
 * the past the registers the recorder knows there and the present memory
 * -- and gives finish the SSE registers for float results.  Writes
 * (`set var`) are allowed only live.
 */
#include <string.h>
#include <sys/user.h>

#include "session/session_int.h"
#include "target/target.h"
#include "util/error.h"

struct bind_ctx {
	struct ptd_session *s;
	long (*fallback)(void *ctx, uint64_t addr, void *buf, size_t n);
	void *fallback_ctx;
};

static long ses_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct bind_ctx *c = ctx;

	if (ptd_session_alive(c->s) || ptd_session_offline(c->s))
		return ptd_session_read(c->s, addr, buf, n);
	if (c->fallback)
		return c->fallback(c->fallback_ctx, addr, buf, n);
	return -ptde_not_running;
}

static long ses_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
	struct bind_ctx *c = ctx;

	if (!ptd_session_alive(c->s) || ptd_session_replaying(c->s) || !c->s->t)
		return ptd__err(-ptde_unsupported, "cannot write memory in the recorded past");
	return ptd_target_write(c->s->t, addr, buf, n);
}

static int ses_set_reg(void *ctx, int regno, uint64_t val)
{
	static const size_t off[17] = {
		offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rdx),
		offsetof(struct user_regs_struct, rcx), offsetof(struct user_regs_struct, rbx),
		offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
		offsetof(struct user_regs_struct, rbp), offsetof(struct user_regs_struct, rsp),
		offsetof(struct user_regs_struct, r8),	offsetof(struct user_regs_struct, r9),
		offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
		offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
		offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
		offsetof(struct user_regs_struct, rip),
	};
	struct bind_ctx *c = ctx;
	struct sthread *th = ptd__ses_cur_thread(c->s);
	struct user_regs_struct r;
	int rc;

	if (!th || !ptd_session_alive(c->s) || ptd_session_replaying(c->s) || !c->s->t)
		return ptd__err(-ptde_unsupported, "cannot write registers in the recorded past");
	/* the others: eflags, the segment registers, fs_base, gs_base
	 * (their DWARF numbers) and orig_rax (1000) */
	static const struct {
		int regno;
		size_t off;
	} other[] = {
		{ 49, offsetof(struct user_regs_struct, eflags) },
		{ 50, offsetof(struct user_regs_struct, es) },
		{ 51, offsetof(struct user_regs_struct, cs) },
		{ 52, offsetof(struct user_regs_struct, ss) },
		{ 53, offsetof(struct user_regs_struct, ds) },
		{ 54, offsetof(struct user_regs_struct, fs) },
		{ 55, offsetof(struct user_regs_struct, gs) },
		{ 58, offsetof(struct user_regs_struct, fs_base) },
		{ 59, offsetof(struct user_regs_struct, gs_base) },
		{ 1000, offsetof(struct user_regs_struct, orig_rax) },
	};
	size_t at = 0;
	int found = regno >= 0 && regno < 17;

	if (found)
		at = off[regno];
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (other[i].regno == regno) {
			at = other[i].off;
			found = 1;
		}
	if (!found)
		return ptd__err(-ptde_invalid, "cannot write register %d", regno);
	rc = ptd_target_get_regs(c->s->t, th->tid, &r);
	if (rc < 0)
		return rc;
	memcpy((char *)&r + at, &val, 8);
	return ptd_target_set_regs(c->s->t, th->tid, &r);
}

/* The selected thread's XSAVE state, live only: the recorders keep no
 * vector registers, which are <unavailable> in the past. */
static int ses_xstate(void *ctx, void *buf, size_t *size)
{
	struct bind_ctx *c = ctx;
	struct sthread *th = ptd__ses_cur_thread(c->s);

	if (!th || !ptd_session_alive(c->s) || ptd_session_replaying(c->s) || !c->s->t)
		return -ptde_unsupported;
	return ptd_target_get_xstate(c->s->t, th->tid, buf, size);
}

static int ses_set_xstate(void *ctx, const void *buf, size_t size)
{
	struct bind_ctx *c = ctx;
	struct sthread *th = ptd__ses_cur_thread(c->s);

	if (!th || !ptd_session_alive(c->s) || ptd_session_replaying(c->s) || !c->s->t)
		return ptd__err(-ptde_unsupported, "cannot write registers in the recorded past");
	return ptd_target_set_xstate(c->s->t, th->tid, buf, size);
}

int ptd_session_values_bind(struct ptd_session *s, struct ptd_values *v, int level,
			    uint64_t level_pc,
			    long (*fallback_read)(void *ctx, uint64_t addr, void *buf, size_t n),
			    void *fallback_ctx)
{
	struct ptd_values_target tg = { 0 };
	struct bind_ctx ctx = { s, fallback_read, fallback_ctx };
	struct user_regs_struct r;
	int pc_only = 1, live;

	if (!s || !v)
		return -ptde_invalid;
	live = ptd_session_alive(s) && !ptd_session_replaying(s) && !ptd_session_offline(s);
	tg.symbols = ptd_session_symbols(s);
	tg.read = ses_read;
	/* before `run` gdb writes to the executable's memory, which it does
	 * not have open for writing: "Cannot access memory"; the past and
	 * loaded traces are read-only with their own message */
	tg.write = live || (!ptd_session_alive(s) && !ptd_session_offline(s)) ? ses_write : NULL;
	tg.set_reg = live ? ses_set_reg : NULL;
	tg.xstate = live ? ses_xstate : NULL;
	tg.set_xstate = live ? ses_set_xstate : NULL;
	tg.ctx = &ctx;
	tg.ctx_size = sizeof(ctx); /* copied into @v by the bind */
	tg.past = ptd_session_replaying(s) || ptd_session_offline(s);
	tg.level = level;
	tg.level_pc = level_pc;
	ptd_clear_error();
	if ((ptd_session_alive(s) || ptd_session_offline(s)) &&
	    ptd_session_regs(s, &r, &pc_only) == 0) {
		tg.regs = &r;
		tg.pc_only = pc_only;
	}
	ptd_clear_error();
	return ptd_values_bind(v, &tg);
}

int ptd_session_return_value(struct ptd_session *s, struct ptd_values *v, uint64_t func_pc,
			     struct ptd_value **out)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;
	struct user_fpregs_struct f;
	uint8_t xmm[2][16];
	int have = 0;

	if (!s || !v || !out)
		return -ptde_invalid;
	if (th && s->t && ptd_session_alive(s) && !ptd_session_replaying(s) &&
	    ptd_target_get_fpregs(s->t, th->tid, &f) == 0) {
		memcpy(xmm[0], &f.xmm_space[0], 16);
		memcpy(xmm[1], &f.xmm_space[4], 16);
		have = 1;
	}
	return ptd_values_return_value(v, func_pc, (const uint8_t(*)[16])xmm, have, out);
}
