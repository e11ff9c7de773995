/*
 * The x87 and SSE state of a stopped thread (PTRACE_GETFPREGS: the 64-bit
 * FXSAVE layout), for the gdb stub's registers.  Kept apart from target.c:
 * it needs nothing of the thread table but the thread's state.
 */
#include "target/target.h"

#include <errno.h>
#include <string.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "util/error.h"

int ptd_target_get_xstate(struct ptd_target *t, pid_t tid, void *buf, size_t *size)
{
	struct iovec iov;

	if (!t || !buf || !size || !*size)
		return -ptde_invalid;
	if (ptd_target_thread_state(t, tid) != PTD_THREAD_STOPPED)
		return ptd__err(-ptde_nosrch, "thread %d is not stopped", (int)tid);
	iov.iov_base = buf;
	iov.iov_len = *size;
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		return ptd__err(ptd__errno_code(errno),
				"cannot read the extended registers (XSAVE state) of %d: %s",
				(int)tid, strerror(errno));
	*size = iov.iov_len;
	return 0;
}

int ptd_target_set_xstate(struct ptd_target *t, pid_t tid, const void *buf, size_t size)
{
	struct iovec iov;

	if (!t || !buf || !size)
		return -ptde_invalid;
	if (ptd_target_thread_state(t, tid) != PTD_THREAD_STOPPED)
		return ptd__err(-ptde_nosrch, "thread %d is not stopped", (int)tid);
	iov.iov_base = (void *)buf;
	iov.iov_len = size;
	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		return ptd__err(ptd__errno_code(errno),
				"cannot write the extended registers (XSAVE state) of %d: %s",
				(int)tid, strerror(errno));
	return 0;
}

int ptd_target_get_fpregs(struct ptd_target *t, pid_t tid, struct user_fpregs_struct *f)
{
	if (!t || !f)
		return -ptde_invalid;
	if (ptd_target_thread_state(t, tid) != PTD_THREAD_STOPPED)
		return ptd__err(-ptde_nosrch, "thread %d is not stopped", (int)tid);
	if (ptrace(PTRACE_GETFPREGS, tid, NULL, f) < 0)
		return ptd__err(ptd__errno_code(errno),
				"cannot read the x87/SSE registers of %d: %s", (int)tid,
				strerror(errno));
	return 0;
}
