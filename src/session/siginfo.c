/*
 * The siginfo of the signal the selected thread stopped for (a crash's
 * code and faulting address), for reports.  Live only: a loaded trace or
 * a replay position has none.
 */
#include <signal.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "session/session.h"
#include "session/session_int.h"
#include "target/target.h"
#include "util/error.h"

/* The kernel's siginfo of the selected thread's stop into @si. */
static int stop_siginfo(struct ptd_session *s, siginfo_t *si)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;

	if (s->offline || !th || !ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "no live thread stopped for a signal");
	if (th->pos)
		return ptd__err(-ptde_invalid,
				"the siginfo is the live stop's, not a replay position's");
	return ptd_target_siginfo(s->t, th->tid, si);
}

long ptd_session_siginfo_raw(struct ptd_session *s, void *buf, size_t n)
{
	siginfo_t si;
	int rc;

	if (!s || !buf)
		return -ptde_invalid;
	rc = stop_siginfo(s, &si);
	if (rc < 0)
		return rc;
	if (n > sizeof(si))
		n = sizeof(si);
	memcpy(buf, &si, n);
	return (long)n;
}

int ptd_session_siginfo(struct ptd_session *s, struct ptd_stop_siginfo *out)
{
	siginfo_t si;
	int rc;

	if (!s || !out)
		return -ptde_invalid;
	memset(out, 0, sizeof(*out));
	rc = stop_siginfo(s, &si);
	if (rc < 0)
		return rc;
	out->signo = si.si_signo;
	out->code = si.si_code;
	out->addr = (uint64_t)(uintptr_t)si.si_addr;
	if (si.si_code <= 0)
		out->sender_pid = si.si_pid;
	return 0;
}
