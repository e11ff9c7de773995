/*
 * The siginfo of a thread stopped for a signal: ptdbg-report's "why it
 * stopped" names the signal's code and faulting address, which only the
 * kernel's siginfo knows (the stop itself carries the number alone).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>

#include "ptdbg/ptdbg.h"
#include "target/target.h"
#include "util/error.h"

int ptd_target_siginfo(struct ptd_target *t, pid_t tid, siginfo_t *si)
{
	if (!t || !si || tid <= 0)
		return -ptde_invalid;
	memset(si, 0, sizeof(*si));
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, si) < 0) {
		if (errno == ESRCH)
			return ptd__err(-ptde_nosrch, "cannot read the siginfo of thread %d: %s",
					(int)tid, strerror(errno));
		/* EINVAL: stopped for something other than a signal */
		return ptd__err(-ptde_notfound, "thread %d did not stop for a signal", (int)tid);
	}
	return 0;
}
