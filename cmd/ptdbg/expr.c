/*
 * Numeric arguments of the shell (x's address, break *ADDR, counts,
 * quit's code) as C expressions: evaluated by the library's value
 * evaluator (ptd_values_eval) in the selected frame, then taken as an
 * address or integer.  The kind tells callers how gdb would show it.
 */
#include <stdlib.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

int shell_eval(struct shell *sh, const char *expr, uint64_t *val, enum expr_kind *kind)
{
	struct ptd_value *v = NULL;
	char *tn = NULL;
	int rc;

	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_eval(sh->vals, expr, &v);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	rc = ptd_value_as_address(sh->vals, v, val);
	if (rc < 0) {
		ptd_value_free(v);
		if (kind && !strcmp(ptd_last_error(rc), "value is not available")) {
			*kind = EXPR_UNAVAILABLE;
			*val = 0;
			return 0;
		}
		return shell_error("%s", ptd_last_error(rc));
	}
	if (kind) {
		*kind = EXPR_LONG;
		if (ptd_value_type_name(v, 0, &tn) == 0) {
			if (!strcmp(tn, "void (*)()") || strstr(tn, "(*)("))
				*kind = EXPR_CODE_PTR;
			else if (tn[strlen(tn) - 1] == '*')
				*kind = EXPR_DATA_PTR;
			else if (!strcmp(tn, "int"))
				*kind = EXPR_INT;
			else if (strchr(tn, '(') && !strchr(tn, '*'))
				*kind = EXPR_CODE_PTR; /* a function */
			free(tn);
		}
	}
	ptd_value_free(v);
	return 0;
}
