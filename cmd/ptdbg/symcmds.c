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
