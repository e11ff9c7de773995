/*
 * The shell's breakpoint and motion commands beyond break/delete and the
 * steps (breakcmds.c), the tab completion (complete.c) and the recording
 * status line (status.c): what commands.c and main.c register or call.
 */
#ifndef PTDBG_CMD_BREAKCMDS_H
#define PTDBG_CMD_BREAKCMDS_H

#include "shell.h"

/* Installs the condition evaluator (and anything else these commands
 * need from the session); called at startup and by condition. */
void shell_breakcmds_init(struct shell *sh);

int shell_cmd_condition(struct shell *sh, const char *args);
/* Refuses (with gdb's message, returning -1) a breakpoint condition that
 * cannot parse; 0 otherwise. */
int shell_condition_check(const char *expr);
int shell_cmd_ignore(struct shell *sh, const char *args);
/* Whether breakpoint @id exists. */
int shell_bp_exists(struct shell *sh, int id);
/* Sets its ignore count (below 0: 0) and, at a terminal, says gdb's
 * "Will ignore next N crossings of breakpoint ID." without a newline.
 * Returns 0 or -1 (message printed). */
int shell_bp_set_ignore(struct shell *sh, int id, int64_t count);
int shell_cmd_until(struct shell *sh, const char *args);
int shell_cmd_advance(struct shell *sh, const char *args);
int shell_cmd_jump(struct shell *sh, const char *args);
int shell_cmd_signal(struct shell *sh, const char *args);
int shell_cmd_handle(struct shell *sh, const char *args);
int shell_info_signals(struct shell *sh, const char *args);
int shell_info_sharedlibrary(struct shell *sh, const char *args);

/* break on a function no loaded file has: gdb's "Make breakpoint pending
 * on future shared library load?" ("Make dprintf pending" for a dprintf,
 * @dprintf nonzero) as set breakpoint pending says.  Returns
 * the new breakpoint's id, 0 when none is made (declined, said), or -1
 * after an error message. */
int shell_break_pending(struct shell *sh, const char *spec, int temporary, int dprintf);
int shell_set_breakpoint(struct shell *sh, const char *args);
int shell_show_breakpoint(struct shell *sh, const char *args);
/* enable/disable [N | N.M ...] */
int shell_cmd_enable(struct shell *sh, const char *args);
int shell_cmd_disable(struct shell *sh, const char *args);
/* How gdb names breakpoint spec @spec in "Breakpoint N at ADDR: SPEC. (K
 * locations)": as typed, a bare LINE as FILE:LINE with the full name of
 * @file (the first location's).  Static storage. */
const char *shell_bp_canonical(struct shell *sh, const char *spec, const char *file);
/* set/show exec-direction (sh->exec_reverse). */
int shell_set_exec_direction(struct shell *sh, const char *args);
int shell_show_exec_direction(struct shell *sh, const char *args);

/* info breakpoints: the "stop only if" line (before the hit count) and the
 * "ignore next N hits" line (after it). */
void shell_print_bp_extra(const struct ptd_bpinfo *bi);
void shell_print_bp_ignore(const struct ptd_bpinfo *bi);

int shell_cmd_watch(struct shell *sh, const char *args);
/* catch/tcatch throw|catch|rethrow: gdb's C++ exception catchpoints. */
int shell_cmd_catch(struct shell *sh, const char *args);
int shell_cmd_tcatch(struct shell *sh, const char *args);
/* "throw", "catch", "rethrow" for an enum ptd_catch_kind ("" else). */
const char *shell_catch_word(int kind);
/* A signal catchpoint's signals as gdb names them ("SIGUSR1 SIGALRM",
 * "all", "" for the standard ones), in @out. */
const char *shell_catch_signals(const struct ptd_bpinfo *bi, char *out, size_t n);
int shell_cmd_rwatch(struct shell *sh, const char *args);
int shell_cmd_awatch(struct shell *sh, const char *args);
int shell_info_watchpoints(struct shell *sh, const char *args);
/* A stop at watchpoints: gdb's "Hardware watchpoint N: EXPR" and the
 * values of each one that triggered (@thread: "Thread 2 \"name\"" or NULL). */
void shell_print_watch_stop(struct shell *sh, const char *thread);
/* info breakpoints: the type column and the row of a watchpoint. */
const char *shell_bp_type(const struct ptd_bpinfo *bi);

/* starti: launches the program stopped at its first instruction and fills
 * the stop to report.  Returns 0 or <0 (session error). */
int shell_starti_launch(struct shell *sh, struct ptd_event *ev);

#endif
