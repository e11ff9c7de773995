/*
 * State of one ptdbg shell and the interface between its parts: main.c
 * (options, input loop, signals), commands.c (the command table and its
 * handlers) and expr.c (the small expression evaluator behind print, x,
 * and numeric arguments).  Output layouts live in print.c.
 */
#ifndef PTDBG_CMD_SHELL_H
#define PTDBG_CMD_SHELL_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ptdbg/ptdbg.h"
#include "print.h"

#define PTDBG_PROMPT "(ptdbg) "

/* One "display" expression. */
struct shell_display {
	int num;       /* gdb's display number */
	char fmt[16];  /* "i", "3i", "x", or "" */
	char *expr;    /* owned */
	/* the pc range of the block whose locals it uses (gdb shows it only
	 * in that block); has_block 0: shown everywhere */
	int has_block;
	uint64_t blk_lo, blk_hi;
	int disabled;  /* disable display N */
};

struct shell {
	struct ptd_session *s;
	struct ptd_print_ctx pc;
	char main_module[PATH_MAX];
	char lib_name[PATH_MAX]; /* shell_lib_name's answer */

	int batch;
	const char *trace_format; /* --trace-format: blocks or pt */
	/* gdb's from_tty: informational lines ("Starting program", "Run till
	 * exit from", "Continuing.") are printed only for commands a person
	 * typed, not for -ex in batch mode or -x scripts. */
	int from_tty;
	char *run_args; /* arguments as typed, for "Starting program:"; owned, NULL: none */
	pid_t last_pid; /* for "[Inferior 1 (process N) exited ...]" */
	int cur_thread; /* thread selected at the last stop, for "[Switching to ...]" */
	int max_thread; /* highest thread number seen: >1 names threads in stops */
	int confirm;   /* set confirm on|off: ask before kill, quit... */
	int attached;  /* the program was attached to (quit detaches it) */
	int quit;      /* set by quit */
	int trace_cut; /* the loaded trace's truncation was reported */
	int quit_code;

	/* record instruction-history / function-call-history continuation,
	 * [begin, end) of the last listing; cleared whenever the position
	 * moves, as gdb's btrace does. */
	int ih_valid;
	uint64_t ih_begin, ih_end;
	int ch_valid;
	uint64_t ch_begin, ch_end;
	int insn_history_size;
	int call_history_size;
	/* A listing of the past in progress: code bytes are read as at this
	 * instruction number (an exec may lie between it and the position);
	 * 0: at the position. */
	uint64_t read_at;

	/* x: next address and the last format/size/count. */
	int x_valid;
	uint64_t x_next;
	uint64_t x_count;
	char x_fmt;
	char x_size;

	/* list: the current source file and next line to show. */
	char list_file[PATH_MAX];
	int list_line;  /* center line chosen by the last stop */
	int list_next;  /* first line of the next `list` */
	int list_first; /* first line shown by the last `list` */
	/* gdb's last_line_listed for forward-search and reverse-search: the
	 * first line a list showed, a stop's line, the last match (0: none) */
	int search_base;

	int value_num; /* $N counter of print */
	/* values (values.c): the $N history and types; the "memory is the
	 * present memory" note is said once per position */
	struct ptd_values *vals;
	int mem_note_done;
	uint64_t mem_note_pos;
	/* set print frame-arguments, gdb's modes: 0 all, 1 scalars (the
	 * default, as gdb's), 2 none, 3 presence */
	int frame_args_mode;
	int print_pretty; /* set print pretty */
	unsigned print_elements; /* set print elements (0: unlimited) */

	struct shell_display displays[32];
	int ndisplays;
	int display_num;

	/* frame/up/down: the frame shown (0 = innermost) and its pc */
	int frame_level;
	uint64_t frame_pc;
	/* the level as bt numbers it, counting inlined functions' frames;
	 * frame_level is the real frame they are in */
	int frame_vlevel;
	/* and the inlined calls at the real frame's pc inside the one shown
	 * (0: its innermost; see ptd_values_select_inline) */
	int frame_inline;
	/* the frame shown is a tail call frame (gdb's; its values are
	 * those of the real frame frame_level above it) */
	int frame_tail;

	/* A command may ask that an empty line repeat it differently, as gdb's
	 * set_repeat_arguments: "x/4x ADDR" repeats as "x", continuing. */
	char repeat_as[64];
	/* The line typed before the one running (interactive only; pipe
	 * without a COMMAND runs it again), or NULL. */
	const char *prev_line;
	/* info frame of a frame named (level N, function F): "Stack frame at" */
	int info_frame_named;
	/* Set by a pipe that ran prev_line again: it stays the line before. */
	int relaunched;

	/* set breakpoint pending: 0 auto (ask; no when not asked at a
	 * terminal, as gdb's nquery), 1 on, 2 off (breakcmds.c). */
	int bp_pending;
	/* set exec-direction reverse: motion commands go backward */
	int exec_reverse;

	/* watchpoint id -> the key of its kept value type (values.c) */
	struct {
		int id, key;
	} watch_types[64];
	int nwatch_types;

	/* breakpoint commands (bpcommands.c): stops reported so far, the
	 * breakpoint whose commands are to run, and where `commands` reads
	 * its lines from (NULL: standard input) */
	int stops;
	int pending_bp;
	/* the breakpoint the last stop reported is at (0: none), which
	 * `continue N` gives an ignore count as gdb's bpstat_num */
	int stop_bp;
	char *(*read_line)(struct shell *sh);
	void *read_line_ctx;

	/* scripting (cliscript.c): the prompt of the next body line (">"
	 * after one space per open block), the while loops the running
	 * lines are in and a loop_break (1) or loop_continue (2) asked, and
	 * a user command's dont-repeat */
	char body_prompt[64];
	int loop_depth;
	int loop_ctl;
	int dont_repeat;
	/* the most rounds one while makes before it fails (0: no bound; the
	 * fuzzer's, where "while 1" would run forever as in gdb) */
	int loop_limit;
};

/* Runs one command line.  Returns 0, or -1 when the command failed (an
 * error message was printed).  @repeat is set when the line may be
 * repeated by an empty line. */
int shell_execute(struct shell *sh, const char *line, int *repeatable);

/* bpcommands.c: `commands`; whether a breakpoint's list starts with
 * `silent`; a stop at breakpoint @id (0: none) was reported; running the
 * lists of the stops reported (after the command that made them);
 * listing a breakpoint's commands for info breakpoints. */
int shell_cmd_commands(struct shell *sh, const char *args);
int shell_cmd_end(struct shell *sh, const char *args);
int shell_bp_silent(int id);
void shell_bp_stopped(struct shell *sh, int id);
void shell_bp_run_pending(struct shell *sh);
void shell_print_bp_commands(int id);
/* save breakpoints' lines for breakpoint @id's commands (bpcommands.c) */
void shell_save_bp_commands(FILE *f, int id);
/* bpsave.c: save breakpoints, rbreak, and @line with $bpnum replaced by
 * the last breakpoint's number (malloc'ed; NULL when it has none). */
int shell_cmd_save(struct shell *sh, const char *args);
int shell_cmd_rbreak(struct shell *sh, const char *args);
char *shell_subst_bpnum(struct shell *sh, const char *line);

/* cliscript.c: bodies up to a matching `end` (@depth open blocks
 * around them: the prompt's indentation) as trimmed lines, run with
 * if/while; if, while, define, document, dont-repeat, alias, show user,
 * set/show logging; user commands (@word exactly, or a unique prefix
 * with @prefix), their $argc/$argN substituted in @line (NULL: none;
 * (char *)-1 after an error), hooks (@kind "hook" or "hookpost"), the
 * documentation help prints (1 when @name is a user command). */
/* Set by Ctrl-C while a command runs (main.c); a while loop then ends
 * with gdb's "Quit". */
extern volatile sig_atomic_t shell_interrupted;
int shell_read_body(struct shell *sh, int depth, char ***lines, int *n);
void shell_free_lines(char **lines, int n);
/* Prints body @lines @indent columns in, nested blocks 2 more each. */
void shell_print_lines(FILE *f, char **lines, int n, int indent);
int shell_run_body(struct shell *sh, char **lines, int n);
int shell_cmd_if(struct shell *sh, const char *args);
int shell_cmd_while(struct shell *sh, const char *args);
int shell_loop_control(struct shell *sh, const char *word);
int shell_cmd_define(struct shell *sh, const char *args);
int shell_cmd_document(struct shell *sh, const char *args);
int shell_cmd_dont_repeat(struct shell *sh, const char *args);
int shell_cmd_alias(struct shell *sh, const char *args);
int shell_show_user(struct shell *sh, const char *args);
int shell_set_logging(struct shell *sh, const char *args);
int shell_show_logging(struct shell *sh, const char *args);
const char *shell_user_command(const char *word, int prefix);
/* The @i-th user command, then alias, name (completion), or NULL. */
const char *shell_user_name(int i);
const char *shell_alias_expansion(const char *word);
char *shell_subst_args(const char *line);
int shell_run_user(struct shell *sh, const char *name, const char *args);
void shell_run_hook(struct shell *sh, const char *kind, const char *cmd);
int shell_user_help(const char *name);
/* help user-defined: the user commands with their first line of help */
void shell_help_user_defined(void);
void shell_cliscript_release(struct shell *sh);

/* Runs the commands of @path as gdb's -x and source do: not from_tty, no
 * repeats, the first failing command ends the file.  Returns 0 or -1. */
int shell_source(struct shell *sh, const char *path);

/* Replaces sh->run_args with a copy of @args.  Returns 0, or -1 when out
 * of memory (the old arguments are kept). */
int shell_set_run_args(struct shell *sh, const char *args);

/* Frees what the shell owns (not the session). */
void shell_release(struct shell *sh);

/* Shows the "display" expressions (after a stop). */
void shell_do_displays(struct shell *sh);

/* The @i-th command name (aliases excluded) for completion, or NULL. */
const char *shell_command_name(int i);
/* The @i-th subcommand name of info, set, show or record (@top as typed,
 * abbreviations allowed), or NULL. */
const char *shell_subcommand_name(const char *top, int i);
/* The command @word (an abbreviation or alias) stands for, or NULL. */
const char *shell_command_full_name(const char *word);
/* Whether @word is one of the built-in aliases (bt, si...) or short
 * names (b, c, n...), which alias reports as existing aliases. */
int shell_command_is_alias(const char *word);

/* Prints an error like gdb's error(): stdout is flushed first so the
 * order of lines is kept when both go to one file.  Returns -1. */
int shell_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* info proc, info inferiors (proccmds.c) */
int shell_info_proc(struct shell *sh, const char *args);
int shell_info_auxv(struct shell *sh, const char *args);
int shell_info_files(struct shell *sh, const char *args);
int shell_info_inferiors(struct shell *sh, const char *args);
/* skip ..., info skip (skipcmds.c) */
int shell_cmd_skip(struct shell *sh, const char *args);
int shell_info_skip(struct shell *sh, const char *args);
void shell_skip_release(void);
/* generate-core-file, gcore (gcore.c) */
int shell_cmd_gcore(struct shell *sh, const char *args);
/* info frame [level] N | function NAME (commands.c) */
int shell_info_frame_of(struct shell *sh, const char *args);
/* +N / -N lines from the default line as FILE:LINE (breakcmds.c): 1, 0 (no
 * offset), -1 (said why). */
int shell_linespec_offset(struct shell *sh, const char *spec, char *out, size_t n);
/* The unwound registers of the frame at real level @level (values.c). */
int shell_frame_regs_at(struct shell *sh, int level, uint64_t pc, struct user_regs_struct *r,
			struct user_regs_struct *known);
/* A line the next shell_error prints first (then forgets), as gdb's
 * exception_fprintf puts its prefix before the error; NULL: none. */
extern const char *shell_error_prefix;

/* Reads program memory: the live process, or the ELF file before `run`.
 * Returns bytes read or <0. */
long shell_read(struct shell *sh, uint64_t addr, void *buf, size_t n);
/* Bytes of @path's PT_LOAD segments at @addr (elfmem.c). */
long shell_read_file_mem(const char *path, uint64_t addr, void *buf, size_t n);

/* Refreshes the print context (symbols may appear after run/attach). */
void shell_sync(struct shell *sh);

/* Prints the stop for @ev and updates the shell state after a stop. */
void shell_report_stop(struct shell *sh, const struct ptd_event *ev, int temporary, int finish);

/*
 * Evaluates @expr: integers (decimal, 0x, 0 octal, 'c'), $registers,
 * $pc/$sp/$fp, function names, unary - ~ ! and binary * / % + - << >> < >
 * <= >= == != & ^ | && ||, parentheses.  Returns 0 and fills @val/@kind,
 * or -1 after printing an error.
 */
enum expr_kind {
	EXPR_INT,      /* int literal (32-bit when it fits) */
	EXPR_LONG,     /* 64-bit integer (registers, big literals) */
	EXPR_CODE_PTR, /* $pc, function names */
	EXPR_DATA_PTR, /* $sp, $fp */
	EXPR_EFLAGS,
	EXPR_UNAVAILABLE, /* a register not known in the recorded past */
};
int shell_eval(struct shell *sh, const char *expr, uint64_t *val, enum expr_kind *kind);

/* values.c: print, ptype, whatis, set var, info locals/args/frame,
 * display values and finish's return value over the library's values. */
int shell_values_bind(struct shell *sh);
int shell_cmd_print(struct shell *sh, const char *args);
int shell_cmd_output(struct shell *sh, const char *args);
int shell_cmd_printf(struct shell *sh, const char *args);
/* Gives sh->vals what gdb's $_thread, $_siginfo, $_caller_is and
 * $_gdb_setting ask for (commands.c). */
void shell_values_hooks(struct shell *sh);
/* Sets convenience variable $@name to @value, as gdb sets $_exitcode. */
void shell_set_convenience(struct shell *sh, const char *name, long value);
/* enable/disable display [N...] (@on 1/0). */
int shell_display_enable(struct shell *sh, const char *args, int on);
int shell_cmd_call(struct shell *sh, const char *args);
int shell_cmd_ptype(struct shell *sh, const char *args);
int shell_cmd_whatis(struct shell *sh, const char *args);
int shell_cmd_set_var(struct shell *sh, const char *args);
int shell_info_locals(struct shell *sh, const char *args);
/* bt full: the selected frame's locals to @out, each line 8 columns in as
 * gdb's (an error, "No symbol table info available.", in their place).
 * Returns 0 or -1 (message printed). */
int shell_bt_locals(struct shell *sh, FILE *out);
int shell_info_args(struct shell *sh, const char *args);
int shell_info_frame(struct shell *sh, const char *args);
void shell_show_display_value(struct shell *sh, int num, const char *fmt, const char *expr);
void shell_print_return_value(struct shell *sh, uint64_t from_pc);
void shell_values_release(struct shell *sh);
/* Installs the frame-arguments printer in sh->pc (main.c, once). */
void shell_values_init(struct shell *sh);
int shell_set_print(struct shell *sh, const char *args);
int shell_show_print(struct shell *sh, const char *args);
void shell_print_setting(struct shell *sh, const char *name, char *buf, size_t n);
/* The selected frame's registers and which are known (each field 0/1). */
int shell_frame_regs(struct shell *sh, struct user_regs_struct *r, struct user_regs_struct *known);
/* watch EXPR: the address and size of lvalue @expr in the selected frame,
 * and in *@key a kept copy of its type for shell_watch_format() (0 when
 * there is none).  Returns 0 or -1 after gdb's message. */
int shell_watch_lvalue(struct shell *sh, const char *expr, uint64_t *addr, int *len, int *key);
/* envcmds.c: set/show listsize (shell_listsize(): the lines `list`
 * shows), pwd, cd, shell, set/unset/show environment. */
int shell_listsize(struct shell *sh);
int shell_set_listsize(struct shell *sh, const char *args);
int shell_show_listsize(struct shell *sh, const char *args);
int shell_cmd_pwd(struct shell *sh, const char *args);
int shell_cmd_cd(struct shell *sh, const char *args);
int shell_cmd_shell(struct shell *sh, const char *args);
/* pipe [COMMAND] | SHELL_COMMAND, | ..., pipe -d DELIM ... (envcmds.c) */
int shell_cmd_pipe(struct shell *sh, const char *args);
int shell_cmd_unset(struct shell *sh, const char *args);
int shell_set_environment(struct shell *sh, const char *args);
int shell_unset_environment(struct shell *sh, const char *args);
int shell_show_environment(struct shell *sh, const char *args);
/* gdb's query(): 1 for yes (commands.c) */
int shell_query(struct shell *sh, const char *question);
/* regs.c: k0-7 (info registers), the x87/SSE/AVX-512 registers (info
 * all-registers), one of them by name (1 shown, 0 not such a name). */
void shell_print_kregs(struct shell *sh);
void shell_print_extra_regs(struct shell *sh);
int shell_info_extra_reg(struct shell *sh, const char *name);
/* symcmds.c: info address, info functions/variables/types. */
int shell_info_address(struct shell *sh, const char *args);
int shell_info_scope(struct shell *sh, const char *args);
int shell_info_functions(struct shell *sh, const char *args);
int shell_info_variables(struct shell *sh, const char *args);
int shell_info_types(struct shell *sh, const char *args);
/* info symbol ADDR (frames.c). */
int shell_info_symbol(struct shell *sh, const char *args);
/* Whether @addr is a local of the selected frame; then its caller's
 * resume address and the frame's CFA.  Returns 1 or 0. */
int shell_watch_frame(struct shell *sh, uint64_t addr, uint64_t *ret_pc, uint64_t *cfa);
/* The @len bytes at @bytes as a value of kept type @key, as gdb's watch
 * prints Old value/New value.  Returns 0 or -1 (no such type). */
int shell_watch_format(struct shell *sh, int key, const uint8_t *bytes, int len, char *out,
		       size_t n);

#endif
