/*
 * Tab completion of the shell (complete.c).
 */
#ifndef PTDBG_CMD_COMPLETE_H
#define PTDBG_CMD_COMPLETE_H

#include <stddef.h>

#include "shell.h"

/* The candidates for the word @text being typed at offset @start of
 * @line: a sorted list without duplicates in *@out (free with
 * shell_complete_free), their count in *@n.  Returns 1 when file names
 * fit there too (readline completes those itself), else 0. */
int shell_complete(struct shell *sh, const char *line, int start, const char *text,
		   char ***out, size_t *n);
void shell_complete_free(char **v, size_t n);
/* Makes readline complete with shell_complete() (a terminal's input). */
void shell_complete_init(struct shell *sh);

#endif
