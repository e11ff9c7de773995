/*
 * The registers beyond the general ones, as gdb 13 shows them on x86-64
 * with AVX-512: info all-registers (the general registers, st0-7 and the
 * x87 control registers, mxcsr, k0-7, zmm0-31 as gdb's vector unions in
 * hex), k0-7 after the general registers of info registers, and these
 * by name (info registers zmm1).  Each line is the register's value as
 * the value module gives $name (src/values/xregs.c, from the thread's
 * XSAVE state): raw and natural for the scalars, /x for the vectors, and
 * <unavailable> in the recorded past, as gdb's btrace has them.  Which
 * registers there are is CPUID's answer, as for the values.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

/* Whether this CPU's XSAVE area has the AVX-512 components (opmask,
 * ZMM_Hi256, Hi16_ZMM: XCR0 bits 5-7, CPUID leaf 0xD sub-leaf 0). */
static int has_avx512(void)
{
	unsigned a, b, c, d;

	return __get_cpuid_count(0xd, 0, &a, &b, &c, &d) && (a & 0xe0) == 0xe0;
}

static const char *const x87_names[] = { "fctrl", "fstat", "ftag", "fiseg",
					 "fioff", "foseg", "fooff", "fop" };

/* $@name in format @fmt (0: natural), malloc'ed; NULL on an error */
static char *reg_text(struct shell *sh, const char *name, int fmt)
{
	char expr[40], *s = NULL;
	struct ptd_value *val = NULL;

	snprintf(expr, sizeof(expr), "$%s", name);
	ptd_clear_error();
	if (ptd_values_eval(sh->vals, expr, &val) < 0 ||
	    ptd_value_format(sh->vals, val, fmt, 0, &s) < 0)
		s = NULL;
	ptd_value_free(val);
	ptd_clear_error();
	return s;
}

/* One line of info registers: "k1             0x5a5a              23130",
 * "st0            1                   (raw 0x3fff8000000000000000)",
 * "zmm1           {v32_bfloat16 = {0x0, ...}, ...}" */
static void reg_line(struct shell *sh, const char *name)
{
	int vector = strstr(name, "mm") != NULL, st = !strncmp(name, "st", 2);
	char *raw = reg_text(sh, name, st ? 'z' : 'x');
	char *nat = vector ? NULL : reg_text(sh, name, 0);

	if (!raw || !strcmp(raw, "<unavailable>"))
		printf("%-15s<unavailable>\n", name);
	else if (vector)
		printf("%-15s%s\n", name, raw);
	else if (st)
		/* (a value that fills the column is followed by a space) */
		printf("%-15s%-19s (raw %s)\n", name, nat ? nat : "", raw);
	else
		printf("%-15s%-19s %s\n", name, raw, nat ? nat : "");
	free(raw);
	free(nat);
}

/* Whether @name is one of the registers here (on this CPU). */
static int extra_reg(const char *name)
{
	int n = -1, len = 0;
	char c, again[16];

	if (sscanf(name, "k%d%n", &n, &len) == 1 && !name[len] && len == 2 && n >= 0 && n < 8)
		return has_avx512();
	if (sscanf(name, "%cmm%d%n", &c, &n, &len) == 2 && !name[len] && n >= 0 && n < 32 &&
	    (c == 'x' || c == 'y' || c == 'z') &&
	    snprintf(again, sizeof(again), "%cmm%d", c, n) > 0 && !strcmp(again, name))
		return (n < 16 && c != 'z') || has_avx512();
	if (sscanf(name, "st%d%n", &n, &len) == 1 && !name[len] && len == 3 && n >= 0 && n < 8)
		return 1;
	if (!strcmp(name, "mxcsr"))
		return 1;
	for (size_t i = 0; i < sizeof(x87_names) / sizeof(x87_names[0]); i++)
		if (!strcmp(name, x87_names[i]))
			return 1;
	return 0;
}

int shell_info_extra_reg(struct shell *sh, const char *name)
{
	if (!extra_reg(name))
		return 0;
	if (shell_values_bind(sh) < 0)
		return -1;
	reg_line(sh, name);
	return 1;
}

void shell_print_kregs(struct shell *sh)
{
	char name[8];

	if (!has_avx512() || shell_values_bind(sh) < 0)
		return;
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		reg_line(sh, name);
	}
}

void shell_print_extra_regs(struct shell *sh)
{
	char name[8];

	if (shell_values_bind(sh) < 0)
		return;
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "st%d", i);
		reg_line(sh, name);
	}
	for (size_t i = 0; i < sizeof(x87_names) / sizeof(x87_names[0]); i++)
		reg_line(sh, x87_names[i]);
	reg_line(sh, "mxcsr");
	if (has_avx512()) {
		for (int i = 0; i < 8; i++) {
			snprintf(name, sizeof(name), "k%d", i);
			reg_line(sh, name);
		}
		for (int i = 0; i < 32; i++) {
			snprintf(name, sizeof(name), "zmm%d", i);
			reg_line(sh, name);
		}
	}
}
