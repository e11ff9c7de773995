/*
 * The recording status line of forward motions (status.c).
 */
#ifndef PTDBG_CMD_STATUS_H
#define PTDBG_CMD_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "shell.h"

struct shell_status {
	uint64_t t0;    /* when the motion started, ns */
	uint64_t delay; /* nothing before t0 + delay */
	uint64_t last;  /* when the line was last drawn */
	int active;     /* a motion runs */
	int shown;      /* the line is on the screen */
};

/* A motion starts at @now_ns; the line may come @delay_ns later. */
void shell_status_start(struct shell_status *st, uint64_t now_ns, uint64_t delay_ns);
/* Returns 1 and the text to write into @out when the line is due (the
 * delay passed, the last drawing 200 ms ago or more), else 0. */
int shell_status_update(struct shell_status *st, uint64_t now_ns, uint64_t insns, uint64_t bytes,
			char *out, size_t n);
/* The motion ended: returns 1 and the text that erases the line when one
 * was drawn, else 0. */
int shell_status_end(struct shell_status *st, char *out, size_t n);
/* Hooks the status line into the session (main.c at startup). */
void shell_status_init(struct shell *sh);

#endif
