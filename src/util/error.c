/* Error names and the per-thread detailed error message. */
#include "util/error.h"

#include <errno.h>
#include <stdio.h>

static __thread char last_msg[512];

static const char *const names[ptde_max] = {
	[ptde_ok] = "success",
	[ptde_internal] = "internal error",
	[ptde_invalid] = "invalid argument",
	[ptde_nomem] = "out of memory",
	[ptde_sys] = "system call failed",
	[ptde_nosrch] = "no such process",
	[ptde_perm] = "permission denied",
	[ptde_exited] = "the process has exited",
	[ptde_not_running] = "the program is not being run",
	[ptde_eos] = "end of history",
	[ptde_bos] = "beginning of history",
	[ptde_nomap] = "cannot access memory",
	[ptde_bad_trace] = "malformed trace",
	[ptde_unsupported] = "not supported",
	[ptde_notfound] = "not found",
	[ptde_busy] = "busy",
	[ptde_bad_insn] = "cannot decode instruction",
};

const char *ptd_errstr(int code)
{
	if (code < 0)
		code = -code;
	if (code >= ptde_max)
		return "unknown error";
	return names[code];
}

const char *ptd_last_error(int code)
{
	if (last_msg[0])
		return last_msg;
	return ptd_errstr(code);
}

void ptd_clear_error(void)
{
	last_msg[0] = '\0';
}

int ptd__err(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return code;
}

int ptd__errno_code(int err)
{
	switch (err) {
	case ESRCH:
		return -ptde_nosrch;
	case EPERM:
	case EACCES:
		return -ptde_perm;
	case ENOMEM:
		return -ptde_nomem;
	case EFAULT:
	case EIO:
		return -ptde_nomap;
	case EINVAL:
		return -ptde_invalid;
	default:
		return -ptde_sys;
	}
}
