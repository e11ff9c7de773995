/*
 * Hardware breakpoints and watchpoints through the session: the public
 * face of the target's debug-register slots (src/target), so front ends
 * (the stub's Z1-Z4, the shell's watch commands) never hold the ptrace
 * target.  Stops come back from the run loop as PTD_EVENT_HWBREAK.
 */
#include "session/session_int.h"

#include "target/target.h"
#include "util/error.h"

static int hw_live(struct ptd_session *s)
{
	if (!s)
		return -ptde_invalid;
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	return 0;
}

int ptd_session_hw_set(struct ptd_session *s, int slot, uint64_t addr, int len,
		       enum ptd_hw_kind kind)
{
	int rc = hw_live(s);

	return rc < 0 ? rc : ptd_target_hw_set(s->t, slot, addr, len, kind);
}

int ptd_session_hw_clear(struct ptd_session *s, int slot)
{
	if (!s)
		return -ptde_invalid;
	if (!ptd_session_alive(s))
		return slot >= 0 && slot < PTD_HW_SLOTS ? 0 : -ptde_invalid;
	return ptd_target_hw_clear(s->t, slot);
}

int ptd_session_hw_free_slot(struct ptd_session *s)
{
	int rc = hw_live(s);

	return rc < 0 ? rc : ptd_target_hw_free_slot(s->t);
}

int ptd_session_hw_get(struct ptd_session *s, int slot, uint64_t *addr, int *len,
		       enum ptd_hw_kind *kind)
{
	if (!s || slot < 0 || slot >= PTD_HW_SLOTS)
		return -ptde_invalid;
	if (!ptd_session_alive(s))
		return 0;
	return ptd_target_hw_get(s->t, slot, addr, len, kind);
}

int ptd_hw_pieces(uint64_t addr, uint64_t len, uint64_t *pa, int *pl, int max)
{
	return ptd_target_hw_pieces(addr, len, pa, pl, max);
}
