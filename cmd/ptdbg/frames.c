/*
 * All of the selected thread's frames, however deep its stack is: the
 * session's backtrace calls take a buffer of a given size, and a
 * recursion thousands of calls deep must show every frame (gdb has no
 * limit), so these grow the buffer until the frames end before its end.
 */
#include <stdlib.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

/* (a stack of more frames than this is taken as a loop in a corrupt stack) */
#define FRAMES_MAX (1 << 22)

int shell_backtrace_all(struct ptd_session *s, uint64_t **pcs)
{
	uint64_t *buf = NULL;
	int cap, n = -ptde_nomem;

	*pcs = NULL;
	for (cap = 256; cap <= FRAMES_MAX; cap *= 2) {
		uint64_t *nb = realloc(buf, (size_t)cap * sizeof(*buf));

		if (!nb)
			break;
		buf = nb;
		n = ptd_session_backtrace(s, buf, cap);
		if (n < cap)
			break;
	}
	if (n < 0) {
		free(buf);
		return n;
	}
	*pcs = buf;
	return n;
}

int shell_frames_all(struct ptd_session *s, struct ptd_frame_info **fr)
{
	struct ptd_frame_info *buf = NULL;
	int cap, n = -ptde_nomem;

	*fr = NULL;
	for (cap = 256; cap <= FRAMES_MAX; cap *= 2) {
		struct ptd_frame_info *nb = realloc(buf, (size_t)cap * sizeof(*buf));

		if (!nb)
			break;
		buf = nb;
		n = ptd_session_frames(s, buf, cap);
		if (n < cap)
			break;
	}
	if (n < 0) {
		free(buf);
		return n;
	}
	*fr = buf;
	return n;
}
