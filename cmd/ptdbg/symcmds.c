/*
 * The shell's symbol table queries, as gdb 13 prints them: info address
 * (where a symbol lives), info functions / variables / types (the
 * symbols matching a regular expression, grouped by source file, then
 * the ELF symbols without debug information).  The texts come from the
 * library (ptd_values_info_address, ptd_values_info_symbols).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

/* @args without the blanks around it, into @buf. */
static const char *trimmed(const char *args, char *buf, size_t n)
{
	size_t len;

	while (isspace((unsigned char)*args))
		args++;
	snprintf(buf, n, "%s", args);
	len = strlen(buf);
	while (len > 0 && isspace((unsigned char)buf[len - 1]))
		buf[--len] = 0;
	return buf;
}

/* info address SYMBOL */
int shell_info_address(struct shell *sh, const char *args)
{
	char name[512], *s = NULL;
	int rc;

	trimmed(args, name, sizeof(name));
	if (!name[0])
		return shell_error("Argument required.");
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_info_address(sh->vals, name, &s);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	fputs(s, stdout);
	free(s);
	return 0;
}

/* info scope LINESPEC: the symbols of the block there (gdb's place for a
 * breakpoint at LINESPEC: a function's after its prologue) */
int shell_info_scope(struct shell *sh, const char *args)
{
	char spec[512], *s = NULL;
	uint64_t pc = 0;
	int rc;

	trimmed(args, spec, sizeof(spec));
	if (!spec[0])
		return shell_error("requires an argument (function, line or *addr) to define a scope");
	if (spec[0] == '*') {
		enum expr_kind k;

		if (shell_eval(sh, spec + 1, &pc, &k) < 0)
			return -1;
	} else if (!ptd_session_program(sh->s)) {
		return shell_error("No symbol table is loaded.  Use the \"file\" command.");
	} else {
		ptd_clear_error();
		rc = ptd_session_resolve(sh->s, spec, &pc);
		if (rc < 0)
			return shell_error("%s", ptd_last_error(rc));
	}
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_info_scope(sh->vals, pc, spec, &s);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	fputs(s, stdout);
	free(s);
	return 0;
}

/* info functions|variables|types [-q] [-n] [--] [REGEX] (types: no -n) */
static int info_symbols(struct shell *sh, const char *args, int kind)
{
	char re[512], *s = NULL;
	int flags = 0, rc;

	for (;;) {
		while (isspace((unsigned char)*args))
			args++;
		if (args[0] == '-' && (args[1] == 'q' || (args[1] == 'n' && kind != PTD_INFO_TYPES)) &&
		    (!args[2] || isspace((unsigned char)args[2]))) {
			flags |= args[1] == 'q' ? PTD_INFO_QUIET : PTD_INFO_NO_MINIMAL;
			args += 2;
			continue;
		}
		if (args[0] == '-' && args[1] == '-' && (!args[2] || isspace((unsigned char)args[2]))) {
			args += 2;
			while (isspace((unsigned char)*args))
				args++;
		}
		break;
	}
	trimmed(args, re, sizeof(re));
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_info_symbols(sh->vals, kind, re, flags, &s);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	fputs(s, stdout);
	free(s);
	return 0;
}

int shell_info_functions(struct shell *sh, const char *args)
{
	return info_symbols(sh, args, PTD_INFO_FUNCTIONS);
}

int shell_info_variables(struct shell *sh, const char *args)
{
	return info_symbols(sh, args, PTD_INFO_VARIABLES);
}

int shell_info_types(struct shell *sh, const char *args)
{
	return info_symbols(sh, args, PTD_INFO_TYPES);
}
