/*
 * Backtraces of live, ptrace-stopped threads with libunwind-ptrace.
 *
 * The unwinder's address space (the accessor table plus libunwind's
 * cache of unwind information by address) is created once and reused, so
 * repeated backtraces of one process do not redo that work.  The cache is
 * flushed when the process changes or its memory map does (a hash of
 * /proc/PID/maps): after an exec, dlopen or dlclose, or for a different
 * process, stale unwind information would give a wrong backtrace rather
 * than an error.  The per-thread _UPT state (which thread to read) is made
 * per call.
 */
#include "unwind/unwind.h"

#include <errno.h>
#include <fcntl.h>
#include <libunwind-ptrace.h>
#include <pthread.h>
#include <sys/ptrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

static pthread_mutex_t as_lock = PTHREAD_MUTEX_INITIALIZER;
static unw_addr_space_t as;
static pid_t as_pid;
static uint64_t as_maps_hash;

/* FNV-1a of /proc/@tid/maps, or 0 when it cannot be read. */
static uint64_t maps_hash(pid_t tid)
{
	char path[64], buf[4096];
	uint64_t h = 0xcbf29ce484222325ull;
	ssize_t k, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		k = read(fd, buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (i = 0; i < k; i++) {
			h ^= (uint8_t)buf[i];
			h *= 0x100000001b3ull;
		}
	}
	close(fd);
	return h;
}

/* The thread group of @tid (maps are per process). */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	FILE *f;
	int tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : tid;
}

/* Is @addr in an executable mapping of process @pid? */
static int in_exec_mapping(pid_t pid, uint64_t addr)
{
	char path[64], line[512];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 1; /* unknown: take it for code */
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && addr >= lo && addr < hi)
			found = perms[2] == 'x';
	}
	fclose(f);
	return found;
}

/*
 * A thread stopped at code nothing maps (a call through a null or wild
 * pointer) has run nothing there: its return address is at the sp and
 * every other register still holds its caller's value, as gdb assumes.
 * libunwind's fallback for it pops a frame-pointer frame that was never
 * pushed and skips the caller's caller.  So the unwind starts again in
 * the caller, from a second address space whose register reader gives the
 * return address as the pc and sp + 8 as the sp (under as_lock).  Neither
 * address space ever writes a register of the program.
 */
static unw_addr_space_t as_wild;
static struct {
	int on;
	unw_word_t ip, sp;
} caller_regs;
static unw_accessors_t wild_accessors;

static int wild_access_reg(unw_addr_space_t a, unw_regnum_t reg, unw_word_t *val, int write,
			   void *arg)
{
	if (write)
		return -UNW_EREADONLYREG;
	if (caller_regs.on && reg == UNW_REG_IP) {
		*val = caller_regs.ip;
		return 0;
	}
	if (caller_regs.on && reg == UNW_REG_SP) {
		*val = caller_regs.sp;
		return 0;
	}
	return _UPT_accessors.access_reg(a, reg, val, write, arg);
}

/* (a stack of more frames than this is taken as a loop in a corrupt one) */
#define FRAMES_MAX (1 << 22)

/*
 * Unwinds @tid into *@pframes of *@pcap entries, at most @max frames; with
 * @grow the buffer is realloc'ed as the frames need (*@pframes may then
 * change), else the unwind stops at *@pcap.
 */
static int unwind(pid_t tid, struct ptd_frame **pframes, int *pcap, int max, int grow)
{
	struct ptd_frame *frames = *pframes;
	unw_cursor_t cur;
	void *upt;
	int n = 0, r;

	pthread_mutex_lock(&as_lock);
	if (!as) {
		as = unw_create_addr_space(&_UPT_accessors, 0);
		if (!as) {
			pthread_mutex_unlock(&as_lock);
			return ptd__err(-ptde_nomem, "unwind: cannot create address space");
		}
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
	}
	if (!as_wild) {
		wild_accessors = _UPT_accessors;
		wild_accessors.access_reg = wild_access_reg;
		as_wild = unw_create_addr_space(&wild_accessors, 0);
		if (as_wild)
			unw_set_caching_policy(as_wild, UNW_CACHE_GLOBAL);
	}
	{
		pid_t pid = tgid_of(tid);
		uint64_t h = maps_hash(pid);

		if (pid != as_pid || h != as_maps_hash || h == 0) {
			unw_flush_cache(as, 0, 0);
			if (as_wild)
				unw_flush_cache(as_wild, 0, 0);
			as_pid = pid;
			as_maps_hash = h;
		}
	}

	upt = _UPT_create(tid);
	if (!upt) {
		pthread_mutex_unlock(&as_lock);
		return ptd__err(-ptde_nomem, "unwind: cannot create state for thread %d", (int)tid);
	}
	r = unw_init_remote(&cur, as, upt);
	if (r < 0) {
		_UPT_destroy(upt);
		pthread_mutex_unlock(&as_lock);
		/* Reading registers fails with ESRCH when the thread is not
		 * stopped under our ptrace. */
		if (r == -UNW_EBADREG || r == -UNW_EUNSPEC)
			return ptd__err(-ptde_nosrch,
					"cannot unwind thread %d: is it stopped under ptrace? (%s)",
					(int)tid, unw_strerror(r));
		return ptd__err(-ptde_internal, "cannot unwind thread %d: %s", (int)tid,
				unw_strerror(r));
	}
	{
		unw_word_t ip = 0, sp = 0;
		long ra;

		if (as_wild && max > 1 && unw_get_reg(&cur, UNW_REG_IP, &ip) == 0 &&
		    unw_get_reg(&cur, UNW_REG_SP, &sp) == 0 && !in_exec_mapping(tgid_of(tid), ip)) {
			errno = 0;
			ra = ptrace(PTRACE_PEEKDATA, tid, (void *)sp, NULL);
			if (!errno && in_exec_mapping(tgid_of(tid), (uint64_t)ra)) {
				caller_regs.on = 1;
				caller_regs.ip = (unw_word_t)ra;
				caller_regs.sp = sp + 8;
				if (unw_init_remote(&cur, as_wild, upt) == 0) {
					frames[0].pc = ip;
					frames[0].sp = sp;
					frames[0].cfa = sp + 8;
					n = 1;
				} else if (unw_init_remote(&cur, as, upt) < 0) {
					caller_regs.on = 0;
					_UPT_destroy(upt);
					pthread_mutex_unlock(&as_lock);
					return ptd__err(-ptde_internal, "cannot unwind thread %d", (int)tid);
				}
			}
		}
	}
	for (;;) {
		unw_word_t ip = 0, sp = 0;

		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || unw_get_reg(&cur, UNW_REG_SP, &sp) < 0)
			break;

		if (n > 0) {
			/* A frame's CFA is its caller's sp after the return. */
			frames[n - 1].cfa = sp;
			/* A zero return address marks the outermost frame. */
			if (ip == 0 || n >= max)
				break;
			if (n >= *pcap) {
				struct ptd_frame *nf = NULL;

				if (grow && *pcap < max)
					nf = realloc(frames, (size_t)(*pcap * 2 < max ? *pcap * 2 : max) *
								     sizeof(*frames));
				if (!nf)
					break;
				*pframes = frames = nf;
				*pcap = *pcap * 2 < max ? *pcap * 2 : max;
			}
			/* Loops in corrupted stacks: stop when nothing moves. */
			if (sp == frames[n - 1].sp && ip == frames[n - 1].pc)
				break;
		}
		frames[n].pc = ip;
		frames[n].sp = sp;
		frames[n].cfa = 0;
		n++;
		if (unw_step(&cur) <= 0)
			break;
	}
	caller_regs.on = 0;
	_UPT_destroy(upt);
	pthread_mutex_unlock(&as_lock);
	if (n == 0)
		return ptd__err(-ptde_internal, "cannot read the pc of thread %d", (int)tid);
	return n;
}

int ptd_unwind_backtrace(pid_t tid, struct ptd_frame *frames, int max)
{
	int cap = max;

	if (tid <= 0 || !frames || max <= 0)
		return ptd__err(-ptde_invalid, "unwind: bad argument");
	return unwind(tid, &frames, &cap, max, 0);
}

int ptd_unwind_backtrace_all(pid_t tid, struct ptd_frame **frames)
{
	int cap = 64, n;

	if (!frames)
		return ptd__err(-ptde_invalid, "unwind: bad argument");
	*frames = NULL;
	if (tid <= 0)
		return ptd__err(-ptde_invalid, "unwind: bad argument");
	*frames = malloc((size_t)cap * sizeof(**frames));
	if (!*frames)
		return ptd__err(-ptde_nomem, "unwind: cannot allocate frames");
	n = unwind(tid, frames, &cap, FRAMES_MAX, 1);
	if (n < 0) {
		free(*frames);
		*frames = NULL;
	}
	return n;
}
