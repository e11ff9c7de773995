/*
 * Changing the live program through the session: memory, registers, the
 * signal a thread gets when it resumes.  The gdb stub needs these (G, P, M,
 * X, C/S packets); they are the session's so that no front end holds the
 * ptrace target.  The recorded past cannot be changed: while the selected
 * thread replays, every write here is refused.
 */
#include "session/session_int.h"

#include <stdio.h>
#include <string.h>

#include "decode/bundle.h"
#include "target/target.h"
#include "util/error.h"

/* The thread @tid names (0: the selected one), live and not replaying. */
static int live_tid(struct ptd_session *s, pid_t tid, pid_t *out, int write)
{
	struct sthread *th;

	if (!s)
		return -ptde_invalid;
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if (write && ptd_session_replaying(s))
		return ptd__err(-ptde_invalid,
				"cannot change the program in the recorded past (record goto end first)");
	th = tid ? ptd__ses_thread_by_tid(s, tid) : ptd__ses_cur_thread(s);
	if (!th || th->gone)
		return ptd__err(-ptde_notfound, "no thread %d in the program", (int)tid);
	*out = th->tid;
	return 0;
}

long ptd_session_write(struct ptd_session *s, uint64_t addr, const void *buf, size_t n)
{
	pid_t tid;
	int rc = live_tid(s, 0, &tid, 1);

	if (rc < 0)
		return rc;
	if (!buf && n)
		return -ptde_invalid;
	return ptd_target_write(s->t, addr, buf, n);
}

int ptd_session_set_regs(struct ptd_session *s, pid_t tid, const struct user_regs_struct *r)
{
	int rc = live_tid(s, tid, &tid, 1);

	if (rc < 0)
		return rc;
	if (!r)
		return -ptde_invalid;
	return ptd_target_set_regs(s->t, tid, r);
}

int ptd_session_set_pc(struct ptd_session *s, pid_t tid, uint64_t pc)
{
	int rc = live_tid(s, tid, &tid, 1);

	if (rc < 0)
		return rc;
	return ptd_target_set_pc(s->t, tid, pc);
}

int ptd_session_fpregs(struct ptd_session *s, pid_t tid, struct user_fpregs_struct *f)
{
	int rc;

	if (s && ptd_session_replaying(s))
		return ptd__err(-ptde_unsupported,
				"the floating-point registers are not recorded");
	rc = live_tid(s, tid, &tid, 0);
	if (rc < 0)
		return rc;
	if (!f)
		return -ptde_invalid;
	return ptd_target_get_fpregs(s->t, tid, f);
}

int ptd_session_xstate(struct ptd_session *s, pid_t tid, void *buf, size_t *size)
{
	int rc;

	if (s && ptd_session_replaying(s))
		return ptd__err(-ptde_unsupported, "the extended registers are not recorded");
	rc = live_tid(s, tid, &tid, 0);
	if (rc < 0)
		return rc;
	return ptd_target_get_xstate(s->t, tid, buf, size);
}

int ptd_session_set_signal(struct ptd_session *s, pid_t tid, int signo)
{
	int rc = live_tid(s, tid, &tid, 0);

	if (rc < 0)
		return rc;
	if (signo < 0 || signo >= 65)
		return ptd__err(-ptde_invalid, "invalid signal %d", signo);
	ptd_target_set_pending_signal(s->t, tid, signo);
	return 0;
}

void ptd_host_cpu(struct ptd_cpu_info *out)
{
	struct ptd_cpu cpu;
	char vendor[16];

	if (!out)
		return;
	ptd_bundle_host_cpu(&cpu, vendor);
	memset(out, 0, sizeof(*out));
	out->family = cpu.family;
	out->model = cpu.model;
	out->stepping = cpu.stepping;
	snprintf(out->vendor, sizeof(out->vendor), "%s", vendor[0] ? vendor : "GenuineIntel");
}
