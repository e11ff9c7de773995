/*
 * The siginfo of the signal the selected thread stopped for (a crash's
 * code and faulting address), for reports.  Live only: a loaded trace or
 * a replay position has none.
 */
#include <signal.h>

#include "ptdbg/ptdbg.h"
#include "session/session.h"
#include "session/session_int.h"
#include "target/target.h"
#include "util/error.h"

int ptd_session_siginfo(struct ptd_session *s, siginfo_t *si)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;

	if (!s || !si)
		return -ptde_invalid;
	if (s->offline || !th || !ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "no live thread stopped for a signal");
	if (th->pos)
		return ptd__err(-ptde_invalid, "the siginfo is the live stop's, not a replay position's");
	return ptd_target_siginfo(s->t, th->tid, si);
}
