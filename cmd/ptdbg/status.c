/*
 * The status line while a forward motion records: after the motion has
 * run for a while (one second by default), one line "Recording: N
 * instructions, B, R insn/s" is drawn on the terminal and redrawn in
 * place ("\r", erase to the end of the line) at most every 200 ms; it is
 * erased before the stop is printed.  Only a terminal gets it: with
 * standard output a pipe or file nothing is ever written.
 *
 * The decisions (when to draw, what, whether to erase) are the pure
 * functions shell_status_*() so a unit test drives them with made-up
 * clocks (tests/unit/test-status.c); status_progress() does the I/O.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

#define STATUS_REDRAW_NS 200000000ull

void shell_status_start(struct shell_status *st, uint64_t now_ns, uint64_t delay_ns)
{
	memset(st, 0, sizeof(*st));
	st->t0 = now_ns;
	st->delay = delay_ns;
	st->active = 1;
}

static void human_bytes(uint64_t b, char *out, size_t n)
{
	if (b >= 10ull << 30)
		snprintf(out, n, "%" PRIu64 " GB", b >> 30);
	else if (b >= 10ull << 20)
		snprintf(out, n, "%" PRIu64 " MB", b >> 20);
	else if (b >= 10ull << 10)
		snprintf(out, n, "%" PRIu64 " kB", b >> 10);
	else
		snprintf(out, n, "%" PRIu64 " bytes", b);
}

int shell_status_update(struct shell_status *st, uint64_t now_ns, uint64_t insns, uint64_t bytes,
			char *out, size_t n)
{
	uint64_t el, rate;
	char b[32];

	if (!st->active || now_ns < st->t0 || now_ns - st->t0 < st->delay)
		return 0;
	if (st->shown && now_ns - st->last < STATUS_REDRAW_NS)
		return 0;
	el = now_ns - st->t0;
	/* instructions per second over the whole motion */
	rate = el ? (uint64_t)((double)insns * 1e9 / (double)el) : 0;
	human_bytes(bytes, b, sizeof(b));
	snprintf(out, n, "\rRecording: %" PRIu64 " instructions, %s, %" PRIu64 " insn/s\033[K",
		 insns, b, rate);
	st->shown = 1;
	st->last = now_ns;
	return 1;
}

int shell_status_end(struct shell_status *st, char *out, size_t n)
{
	int shown = st->active && st->shown;

	st->active = 0;
	st->shown = 0;
	if (!shown)
		return 0;
	snprintf(out, n, "\r\033[K");
	return 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct shell_status the_status;

static void status_progress(void *ctx, const struct ptd_progress *p)
{
	char line[160];
	int fd = *(int *)ctx;

	/* never to a pipe or a file */
	if (fd < 0 || !isatty(fd))
		return;
	if (p->phase == PTD_PROGRESS_START) {
		const char *d = getenv("PTDBG_STATUS_DELAY_MS");
		uint64_t delay = d && *d ? strtoull(d, NULL, 10) * 1000000ull : 1000000000ull;

		shell_status_start(&the_status, now_ns(), delay);
		return;
	}
	if (p->phase == PTD_PROGRESS_END) {
		if (shell_status_end(&the_status, line, sizeof(line))) {
			fputs(line, stdout);
			fflush(stdout);
		}
		return;
	}
	if (shell_status_update(&the_status, now_ns(), p->insns, p->bytes, line, sizeof(line))) {
		fputs(line, stdout);
		fflush(stdout);
	}
}

static int status_fd = 1;

void shell_status_init(struct shell *sh)
{
	status_fd = fileno(stdout);
	ptd_session_set_progress(sh->s, status_progress, &status_fd);
}
