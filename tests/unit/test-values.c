/*
 * The value module (src/values) without a process: the C expression
 * parser and evaluator, gdb's value printer and type names, DWARF lookup
 * of globals, statics, locals and arguments (the latter through the CFI's
 * CFA and DW_OP_fbreg over a fake stack), the $N history, assignment,
 * and bad input: malformed expressions, unknown names, bad pointers,
 * division by zero, nesting that must not overflow the C stack, no debug
 * information, and the read-only past.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"
#include "symbols/symbols.h"

static char prog[4200];

/* Memory: the program file's PT_LOAD segments (data is as initialised),
 * plus a fake stack page that tests fill. */
#define STACK_BASE 0x7ff000000000ull
#define STACK_SIZE 4096
static uint8_t stack_mem[STACK_SIZE];
static uint8_t data_mem[0x10000];
static uint64_t data_lo, data_hi;
static int writes_allowed;

static long fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	if (addr >= STACK_BASE && addr + n <= STACK_BASE + STACK_SIZE) {
		memcpy(buf, stack_mem + (addr - STACK_BASE), n);
		return (long)n;
	}
	if (addr >= data_lo && addr + n <= data_hi) {
		memcpy(buf, data_mem + (addr - data_lo), n);
		return (long)n;
	}
	return -1;
}

static long fake_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
	if (!writes_allowed)
		return -1;
	if (addr >= STACK_BASE && addr + n <= STACK_BASE + STACK_SIZE) {
		memcpy(stack_mem + (addr - STACK_BASE), buf, n);
		return (long)n;
	}
	if (addr >= data_lo && addr + n <= data_hi) {
		memcpy(data_mem + (addr - data_lo), buf, n);
		return (long)n;
	}
	return -1;
}

/* The writable PT_LOAD (.data) and the read-only one holding .rodata,
 * copied into data_mem: [lowest vaddr, highest end) of the file's loads
 * above 0x402000 (non-PIE testprogs). */
static void load_data(void)
{
	int fd = open(prog, O_RDONLY);
	Elf *e;
	size_t n, i;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getphdrnum(e, &n), 0);
	data_lo = 0x402000;
	data_hi = data_lo + sizeof(data_mem);
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD)
			continue;
		for (uint64_t a = ph.p_vaddr; a < ph.p_vaddr + ph.p_filesz; a++)
			if (a >= data_lo && a < data_hi)
				assert_int_equal(pread(fd, data_mem + (a - data_lo), 1,
						       (off_t)(ph.p_offset + (a - ph.p_vaddr))), 1);
	}
	elf_end(e);
	close(fd);
}

struct fx {
	struct ptd_symbols *sym;
	struct ptd_values *v;
	struct user_regs_struct regs;
};

static void bind(struct fx *f, int with_regs, int pc_only)
{
	struct ptd_values_target t = { 0 };

	t.symbols = f->sym;
	t.read = fake_read;
	t.write = fake_write;
	t.regs = with_regs ? &f->regs : NULL;
	t.pc_only = pc_only;
	assert_int_equal(ptd_values_bind(f->v, &t), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(ptd_symbols_alloc_file(&f->sym, prog, 0), 0);
	assert_int_equal(ptd_values_alloc(&f->v), 0);
	load_data();
	memset(stack_mem, 0, sizeof(stack_mem));
	writes_allowed = 1;
	bind(f, 0, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ptd_values_free(f->v);
	ptd_symbols_free(f->sym);
	free(f);
	return 0;
}

/* Evaluates @expr and checks gdb's text (top-level form, format @fmt). */
static void expect_fmt(struct ptd_values *v, const char *expr, int fmt, const char *want)
{
	struct ptd_value *val = NULL;
	char *s = NULL;
	int rc = ptd_values_eval(v, expr, &val);

	if (rc < 0)
		fail_msg("%s: %s", expr, ptd_last_error(rc));
	rc = ptd_value_format(v, val, fmt, 1, &s);
	if (rc < 0)
		fail_msg("%s: format: %s", expr, ptd_last_error(rc));
	if (strcmp(s, want))
		fail_msg("%s: got \"%s\", want \"%s\"", expr, s, want);
	free(s);
	ptd_value_free(val);
}

static void expect(struct ptd_values *v, const char *expr, const char *want)
{
	expect_fmt(v, expr, 0, want);
}

/* @expr fails (at evaluation or when printed) with message @want. */
static void expect_error(struct ptd_values *v, const char *expr, const char *want)
{
	struct ptd_value *val = NULL;
	char *s = NULL;
	int rc;

	ptd_clear_error();
	rc = ptd_values_eval(v, expr, &val);
	if (rc == 0) {
		rc = ptd_value_format(v, val, 0, 1, &s);
		ptd_value_free(val);
		if (rc == 0)
			fail_msg("%s: no error, got \"%s\"", expr, s);
	}
	if (strcmp(ptd_last_error(rc), want))
		fail_msg("%s: error \"%s\", want \"%s\"", expr, ptd_last_error(rc), want);
}

static void expect_type(struct ptd_values *v, const char *expr, int expand, const char *want)
{
	struct ptd_value *val = NULL;
	char *s = NULL;

	assert_int_equal(ptd_values_eval(v, expr, &val), 0);
	assert_int_equal(ptd_value_type_name(val, expand, &s), 0);
	if (strcmp(s, want))
		fail_msg("type of %s: got \"%s\", want \"%s\"", expr, s, want);
	free(s);
	ptd_value_free(val);
}

static void test_literals(void **state)
{
	struct fx *f = *state;

	/* a table: expression, gdb 13's output */
	static const char *const t[][2] = {
		{ "1 + 2 * 3", "7" },	     { "10 / 3", "3" },	       { "-5 / 2", "-2" },
		{ "-5 % 3", "-2" },	     { "7 >> 1", "3" },	       { "1 << 4", "16" },
		{ "~0", "-1" },		     { "!5", "0" },	       { "1.0 / 3", "0.33333333333333331" },
		{ "1.5f", "1.5" },	     { "'A'", "65 'A'" },      { "'A' + 1", "66" },
		{ "'\\n'", "10 '\\n'" },     { "'\\0'", "0 '\\000'" }, { "\"hi\"", "\"hi\"" },
		{ "4000000000", "4000000000" }, { "0xffffffff", "4294967295" },
		{ "(char)300", "44 ','" },   { "(unsigned char)255 + 1", "256" },
		{ "(short)-1", "-1" },	     { "(unsigned short)-1", "65535" },
		{ "1 ? 2 : 3", "2" },	     { "0 ? 2 : 3", "3" },    { "3 > 2 && 0", "0" },
		{ "3 > 2 || 0", "1" },	     { "sizeof(long)", "8" }, { "sizeof(int) * 2", "8" },
		{ "(1, 2)", "2" },	     { "10 == 10.0", "1" },   { "2.5 * 2", "5" },
		{ "(long)-1 / 2", "0" },     { "-2147483648", "-2147483648" },
		{ "(int)-2147483648 - 1", "2147483647" }, { "(_Bool)5", "true" },
		{ "$", "void" },	     { "$nosuchvar", "void" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		expect(f->v, t[i][0], t[i][1]);
	expect_fmt(f->v, "10", 'x', "0xa");
	expect_fmt(f->v, "-1", 'x', "0xffffffff");
	expect_fmt(f->v, "10", 't', "1010");
	expect_fmt(f->v, "0", 't', "0");
	expect_fmt(f->v, "8", 'o', "010");
	expect_fmt(f->v, "5", 'z', "0x00000005");
	expect_fmt(f->v, "65", 'c', "65 'A'");
	expect_fmt(f->v, "(char)-3", 'u', "253");
	expect_fmt(f->v, "2.25", 'x', "0x4002000000000000");
}

/* gdb's printf: conversions, and the errors that come before any output */
static void expect_printf(struct ptd_values *v, const char *args, const char *want)
{
	char *s = NULL;
	int rc = ptd_values_printf(v, args, &s);

	if (rc < 0) {
		if (strcmp(ptd_last_error(rc), want))
			fail_msg("printf %s: error \"%s\", want \"%s\"", args, ptd_last_error(rc),
				 want);
		return;
	}
	if (strcmp(s, want))
		fail_msg("printf %s: got \"%s\", want \"%s\"", args, s, want);
	free(s);
}

static void test_printf_and_convenience(void **state)
{
	struct fx *f = *state;
	char *s = NULL;

	assert_int_equal(ptd_values_printf(NULL, "\"x\"", &s), -ptde_invalid);
	assert_int_equal(ptd_values_printf(f->v, NULL, &s), -ptde_invalid);
	assert_int_equal(ptd_values_printf(f->v, "\"x\"", NULL), -ptde_invalid);
	expect_printf(f->v, "\"%d|%5x|%-3o|%c\\n\", 10, 255, 8, 65", "10|   ff|10 |A\n");
	expect_printf(f->v, "\"%u %ld %lld %zu\", -1, -2, 3, 4", "4294967295 -2 3 4");
	expect_printf(f->v, "\"%s|%.2s|%s\", \"abc\", \"abc\", 0", "abc|ab|(null)");
	expect_printf(f->v, "\"%5.1f %g %%\", 2.25, 1.5", "  2.2 1.5 %");
	expect_printf(f->v, "\"%d, %d\", (1, 2), 3", "2, 3");
	expect_printf(f->v, "\"no args\"", "no args");
	expect_printf(f->v, "", "Argument required (format-control string and values to print).");
	expect_printf(f->v, "x", "Bad format string, missing '\"'.");
	expect_printf(f->v, "\"abc", "Bad format string, non-terminated '\"'.");
	expect_printf(f->v, "\"x\" 5", "Invalid argument syntax");
	expect_printf(f->v, "\"%d %d\", 1", "Wrong number of arguments for specified format-string");
	expect_printf(f->v, "\"%hd\", 1", "Unrecognized format specifier 'h' in printf");
	expect_printf(f->v, "\"%n\", 1", "Format specifier `n' not supported in printf");
	expect_printf(f->v, "\"%*d\", 1, 2", "`*' not supported for precision or width in printf");
	expect_printf(f->v, "\"%s\", 10", "Cannot access memory at address 0xa");

	/* convenience variables: void until set, then the value and its type */
	expect(f->v, "$cv", "void");
	expect(f->v, "$cv = 5", "5");
	expect(f->v, "$cv * 2", "10");
	expect(f->v, "$cv++", "5");
	expect(f->v, "$cv += 10", "16");
	expect(f->v, "$cv = 2.5", "2.5");
	expect_type(f->v, "$cv", 0, "double");
	expect_error(f->v, "&$cv", "Attempt to take address of value not located in memory.");

	/* print pretty; info frame's frame-arguments mode */
	assert_int_equal(ptd_values_set_frame_args(NULL, 1), -ptde_invalid);
	assert_int_equal(ptd_values_set_frame_args(f->v, 4), -ptde_invalid);
	assert_int_equal(ptd_values_set_frame_args(f->v, 0), 0);
	assert_int_equal(ptd_values_set_pretty(NULL, 1), -ptde_invalid);
	assert_int_equal(ptd_values_set_pretty(f->v, 1), 0);
	expect(f->v, "origin", "{\n  x = -1,\n  y = 1\n}");
	assert_int_equal(ptd_values_set_pretty(f->v, 0), 0);
	expect(f->v, "origin", "{x = -1, y = 1}");

	/* literals and shifts as gdb 13 */
	expect(f->v, "0b101", "5");
	expect(f->v, "-0.0", "0");
	expect(f->v, "1 << 40", "0");
	expect_fmt(f->v, "3", 'f', "4.20389539e-45");
	expect_fmt(f->v, "(char)3", 'f', "3");
	expect_type(f->v, "(void (*)(void))0", 0, "void (*)(void)");
	expect_type(f->v, "(void (*)())0", 0, "void (*)()");
	expect_type(f->v, "(int (**)(int, char *, ...))0", 0, "int (**)(int, char *, ...)");
	expect_type(f->v, "(char * const)0", 0, "char * const");
}

/* A front end for the convenience functions: two frames (fib called by
 * main), a SIGSEGV's siginfo at address 0x10, one setting. */
static int fake_conv_int(void *ctx, const char *name, long *val)
{
	(void)ctx;
	*val = !strcmp(name, "_thread") ? 3 : 1;
	return 1;
}

static int fake_siginfo(void *ctx, void *buf, size_t n)
{
	int32_t head[3] = { 11, 0, 1 };
	uint64_t addr = 0x10;

	(void)ctx;
	assert_true(n >= 24);
	memcpy(buf, head, sizeof(head));
	memcpy((char *)buf + 16, &addr, sizeof(addr));
	return 1;
}

static int fake_frame_function(void *ctx, int up, char *buf, size_t n)
{
	static const char *const fn[] = { "fib", "main" };

	(void)ctx;
	if (up > 1)
		return 0;
	snprintf(buf, n, "%s", fn[up]);
	return 1;
}

static enum ptd_setting_kind fake_setting(void *ctx, const char *name, char *buf, size_t n)
{
	(void)ctx;
	if (strcmp(name, "listsize"))
		return PTD_SETTING_NONE;
	snprintf(buf, n, "10");
	return PTD_SETTING_INT;
}

static void test_convenience_functions(void **state)
{
	struct fx *f = *state;
	const struct ptd_values_hooks h = { .conv_int = fake_conv_int,
					    .siginfo = fake_siginfo,
					    .frame_function = fake_frame_function,
					    .setting = fake_setting };
	static const char *const t[][2] = {
		{ "$_streq(\"ab\", \"ab\")", "1" },	{ "$_streq(\"ab\", \"a\")", "0" },
		{ "$_strlen(\"hello\")", "5" },		{ "$_regex(\"hello\", \"h.l\")", "1" },
		{ "$_regex(\"hello\", \"l\")", "0" },	{ "$_as_string(6 * 7)", "\"42\"" },
		{ "$_isvoid($nothing)", "1" },		{ "$_isvoid(1)", "0" },
		{ "$_caller_is(\"main\")", "1" },	{ "$_caller_is(\"fib\", 0)", "1" },
		{ "$_caller_is(\"main\", 2)", "0" },	{ "$_any_caller_is(\"main\", 0)", "0" },
		{ "$_any_caller_matches(\"^ma\")", "1" }, { "$_thread", "3" },
		{ "$_inferior", "1" },			{ "$_siginfo.si_signo", "11" },
		{ "$_siginfo._sifields._sigfault.si_addr", "(void *) 0x10" },
		{ "$_gdb_setting(\"listsize\")", "10" }, { "$_gdb_setting_str(\"listsize\")", "\"10\"" },
		{ "$_streq", "<internal function _streq>" },
	};

	ptd_values_set_hooks(NULL, &h);
	ptd_values_set_hooks(f->v, &h);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		expect(f->v, t[i][0], t[i][1]);
	expect_type(f->v, "$_strlen(\"x\")", 0, "long long");
	expect_type(f->v, "$_siginfo", 0, "struct siginfo");
	expect_error(f->v, "$_streq(\"a\")",
		     "Python Exception <class 'TypeError'>: _StrEq.invoke() missing 1 required "
		     "positional argument: 'b'\nError occurred in Python: _StrEq.invoke() missing 1 "
		     "required positional argument: 'b'");
	expect_error(f->v, "$_caller_is(\"a\", -1)",
		     "Python Exception <class 'ValueError'>: nframes must be >= 0\n"
		     "Error occurred in Python: nframes must be >= 0");
	expect_error(f->v, "$_isvoid()", "You must provide one argument for $_isvoid.");
	expect_error(f->v, "$_gdb_setting(\"nosuch\")",
		     "First argument of $_gdb_setting must be a valid setting of the 'show' command.");
	/* without a front end: void, and no frame */
	ptd_values_set_hooks(f->v, NULL);
	expect(f->v, "$_siginfo", "void");
	expect_error(f->v, "$_caller_is(\"main\")",
		     "Python Exception <class 'gdb.error'>: No frame is currently selected.\n"
		     "Error occurred in Python: No frame is currently selected.");
}

static void test_bad_input(void **state)
{
	struct fx *f = *state;
	static const char *const t[][2] = {
		{ "1 +", "A syntax error in expression, near `'." },
		{ ")", "A syntax error in expression, near `)'." },
		{ "(1", "A syntax error in expression, near `'." },
		{ "1 2", "A syntax error in expression, near `2'." },
		{ "5 / 0", "Division by zero" },
		{ "5 % 0", "Division by zero" },
		{ "nosuch", "No symbol \"nosuch\" in current context." },
		{ "'a", "Unmatched single quote." },
		{ "\"abc", "Unterminated string in expression." },
		{ "12abc", "Invalid number \"12abc\"." },
		{ "99999999999999999999999", "Numeric constant too large." },
		{ "*(int *)0", "Cannot access memory at address 0x0" },
		{ "*(int *)8", "Cannot access memory at address 0x8" },
		{ "&5", "Attempt to take address of value not located in memory." },
		{ "*1.5", "Attempt to take contents of a non-pointer value." },
		{ "$pc", "No registers." },
		{ "$5", "History has not yet reached $5." },
		{ "g_counter.x", "Attempt to extract a component of a value that is not a structure." },
		{ "g_rec.nosuch", "There is no member named nosuch." },
		{ "g_counter->x", "Attempt to extract a component of a value that is not a structure pointer." },
		{ "g_counter[1]", "cannot subscript something of type `int'" },
		{ "(struct nosuch *)0", "No struct type named nosuch." },
		{ "g_rec + 1", "Argument to arithmetic operation not a number or boolean." },
		{ "main(1)", "cannot call functions in the program: ptdbg does not run code in it" },
		{ "g_arr[0]@0", "Invalid number 0 of repetitions." },
		{ "5@2", "Only values in memory can be extended with '@'." },
		{ "", "Argument required (expression to compute)." },
		{ "1 = 2", "Left operand of assignment is not an lvalue." },
	};
	char *deep;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		expect_error(f->v, t[i][0], t[i][1]);
	/* 100,000 parentheses or unary minuses: an error, not a stack overflow */
	deep = malloc(200001);
	assert_non_null(deep);
	memset(deep, '(', 100000);
	deep[100000] = '1';
	memset(deep + 100001, ')', 100000);
	deep[200000] = '\0';
	expect_error(f->v, deep, "Expression nested too deeply.");
	memset(deep, '~', 100000);
	deep[100000] = '1';
	deep[100001] = '\0';
	expect_error(f->v, deep, "Expression nested too deeply.");
	free(deep);
	/* every prefix of a valid expression: an answer or an error, no crash */
	{
		const char *e = "(long)g_rec.next->pos.x + g_arr[2] * sizeof(struct point) ? 'a' : \"s\"";
		char buf[128];

		for (i = 0; i <= strlen(e); i++) {
			struct ptd_value *val = NULL;
			char *s = NULL;

			snprintf(buf, sizeof(buf), "%.*s", (int)i, e);
			if (ptd_values_eval(f->v, buf, &val) == 0) {
				if (ptd_value_format(f->v, val, 0, 1, &s) == 0)
					free(s);
				ptd_value_free(val);
			}
		}
	}
	/* NULL arguments */
	assert_int_equal(ptd_values_eval(NULL, "1", NULL), -ptde_invalid);
	assert_int_equal(ptd_values_bind(NULL, NULL), -ptde_invalid);
	assert_int_equal(ptd_values_record(f->v, NULL), -ptde_invalid);
	ptd_value_free(NULL);
	ptd_values_free(NULL);
}

static void test_globals(void **state)
{
	struct fx *f = *state;

	expect(f->v, "g_counter", "42");
	expect(f->v, "s_total", "-7");
	expect(f->v, "g_ratio", "0.5");
	expect(f->v, "g_arr", "{1, 2, 3, 4, 5}");
	/* print elements: 2 of them, then all (0), then gdb's 200 */
	assert_int_equal(ptd_values_set_print_elements(NULL, 2), -ptde_invalid);
	assert_int_equal(ptd_values_set_print_elements(f->v, 2), 0);
	expect(f->v, "g_arr", "{1, 2...}");
	assert_int_equal(ptd_values_set_print_elements(f->v, 0), 0);
	expect(f->v, "g_arr", "{1, 2, 3, 4, 5}");
	assert_int_equal(ptd_values_set_print_elements(f->v, 200), 0);
	expect(f->v, "g_arr[4] - g_arr[0]", "4");
	expect(f->v, "g_zero", "{0 <repeats 12 times>}");
	expect(f->v, "origin", "{x = -1, y = 1}");
	expect(f->v, "g_bytes", "\"\\000\\310z\"");
	expect(f->v, "g_msg", "0x402008 \"hello\"");
	expect(f->v, "*g_msg", "104 'h'");
	expect(f->v, "g_msg[1]", "101 'e'");
	expect(f->v, "&g_arr[1]", "(int *) 0x404044 <g_arr+4>");
	expect(f->v, "*&g_arr[1]", "2");
	expect(f->v, "&g_arr[3] - &g_arr[1]", "2");
	expect(f->v, "g_arr + 1", "(int *) 0x404044 <g_arr+4>");
	expect(f->v, "*g_arr@3", "{1, 2, 3}");
	expect(f->v, "sizeof(g_rec)", "56");
	expect(f->v, "g_rec",
	       "{name = '\\000' <repeats 15 times>, id = 0, score = 0, pos = {x = 0, y = 0}, "
	       "next = 0x0, flags = 0, mode = 0}");
	expect(f->v, "GREEN", "GREEN");
	expect(f->v, "BLUE + 0", "6");
	expect(f->v, "(enum color)6", "BLUE");
	expect(f->v, "(enum color)2", "2");
	expect(f->v, "main", "{int (int, char **)} 0x401291 <main>");
	expect(f->v, "&main", "(int (*)(int, char **)) 0x401291 <main>");
	expect(f->v, "*main", "{int (int, char **)} 0x401291 <main>");
	expect(f->v, "half", "{double (double)} 0x40118f <half>");
	expect_type(f->v, "g_msg", 0, "const char *");
	expect_type(f->v, "&g_arr", 0, "int (*)[5]");
	expect_type(f->v, "origin", 0, "point_t");
	expect_type(f->v, "origin", 1, "struct point {\n    int x;\n    int y;\n}");
	expect_type(f->v, "g_rec.next", 1,
		    "struct rec {\n    char name[16];\n    int id;\n    double score;\n"
		    "    struct point pos;\n    struct rec *next;\n    unsigned int flags : 3;\n"
		    "    unsigned int mode : 5;\n} *");
	expect_type(f->v, "GREEN", 1, "enum color {RED, GREEN = 5, BLUE}");
	expect_type(f->v, "sizeof(int)", 0, "int");
	expect_type(f->v, "g_counter + 1L", 0, "long");
	expect_type(f->v, "g_bytes[0] + g_bytes[1]", 0, "int");
	expect_type(f->v, "1u + 1", 0, "unsigned int");
	{
		char *s = NULL;

		assert_int_equal(ptd_values_type_name(f->v, "struct point", 1, &s), 0);
		assert_string_equal(s, "struct point {\n    int x;\n    int y;\n}");
		free(s);
		assert_int_equal(ptd_values_type_name(f->v, "unsigned long", 0, &s), 0);
		assert_string_equal(s, "unsigned long");
		free(s);
		assert_int_equal(ptd_values_type_name(f->v, "g_counter", 0, &s), -ptde_notfound);
	}
	/* formats element by element */
	expect_fmt(f->v, "g_arr", 'x', "{0x1, 0x2, 0x3, 0x4, 0x5}");
	expect_fmt(f->v, "origin", 'x', "{x = 0xffffffff, y = 0x1}");
	expect_fmt(f->v, "g_bytes", 'd', "{0, -56, 122}");
	expect_fmt(f->v, "g_bytes", 'u', "{0, 200, 122}");
}

/* The address @expr evaluates to. */
static uint64_t addr_of(struct fx *f, const char *expr)
{
	struct ptd_value *val = NULL;
	uint64_t a = 0;

	assert_int_equal(ptd_values_eval(f->v, expr, &val), 0);
	assert_int_equal(ptd_value_as_address(f->v, val, &a), 0);
	ptd_value_free(val);
	return a;
}

/* gdb's watchpoint places: the object, then the scalars read on the way
 * (not arrays or structs merely passed through), each once. */
static void test_watch_chain(void **state)
{
	struct fx *f = *state;
	struct ptd_watch_loc l[8];

	assert_int_equal(ptd_values_watch_chain(f->v, "g_counter", l, 8), 1);
	assert_int_equal(l[0].addr, addr_of(f, "&g_counter"));
	assert_int_equal(l[0].len, 4);
	/* an index: the element and the index variable; the array is not read */
	assert_int_equal(ptd_values_watch_chain(f->v, "g_arr[g_counter - 40]", l, 8), 2);
	assert_int_equal(l[0].addr, addr_of(f, "&g_arr[2]"));
	assert_int_equal(l[0].len, 4);
	assert_int_equal(l[1].addr, addr_of(f, "&g_counter"));
	assert_int_equal(l[1].len, 4);
	/* read twice, watched once */
	assert_int_equal(ptd_values_watch_chain(f->v, "g_arr[g_counter - g_counter]", l, 8), 2);
	assert_int_equal(l[0].addr, addr_of(f, "&g_arr[0]"));
	/* a pointer: *g_msg reads g_msg */
	assert_int_equal(ptd_values_watch_chain(f->v, "*g_msg", l, 8), 2);
	assert_int_equal(l[0].addr, 0x402008);
	assert_int_equal(l[0].len, 1);
	assert_int_equal(l[1].addr, addr_of(f, "&g_msg"));
	assert_int_equal(l[1].len, 8);
	/* through a NULL pointer: the object is at 16, not readable */
	assert_int_equal(ptd_values_watch_chain(f->v, "g_rec.next->id", l, 8), 2);
	assert_int_equal(l[0].addr, 16);
	assert_int_equal(l[1].addr, addr_of(f, "&g_rec.next"));
	/* the evaluation fails on the way: what was read before stays, and
	 * the value whose read failed (NULL->next at 40) comes last */
	assert_int_equal(ptd_values_watch_chain(f->v, "g_rec.next->next->id", l, 8), 3);
	assert_int_equal(l[0].len, 0);
	assert_int_equal(l[1].addr, addr_of(f, "&g_rec.next"));
	assert_int_equal(l[2].addr, addr_of(f, "&g_rec.next") - addr_of(f, "&g_rec"));
	assert_int_equal(l[2].len, 8);
	/* for its type only, nothing is read */
	{
		struct ptd_value *val = NULL;

		assert_int_equal(ptd_values_eval_type(f->v, "g_rec.next->next->id", &val), 0);
		assert_int_equal(ptd_value_size(val), 4);
		ptd_value_free(val);
		expect(f->v, "sizeof(g_rec.next->next->id)", "4");
		assert_int_equal(ptd_values_eval_type(NULL, "g_counter", &val), -ptde_invalid);
	}
	/* a whole struct is the object; @max bounds the places */
	assert_int_equal(ptd_values_watch_chain(f->v, "origin", l, 8), 1);
	assert_int_equal(l[0].len, 8);
	assert_int_equal(ptd_values_watch_chain(f->v, "*g_msg", l, 1), 1);
	/* errors */
	assert_int_equal(ptd_values_watch_chain(f->v, "g_counter + 1", l, 8), -ptde_invalid);
	assert_true(ptd_values_watch_chain(f->v, "nosuch", l, 8) < 0);
	assert_true(ptd_values_watch_chain(f->v, "g_counter +", l, 8) < 0);
	assert_int_equal(ptd_values_watch_chain(NULL, "g_counter", l, 8), -ptde_invalid);
	assert_int_equal(ptd_values_watch_chain(f->v, NULL, l, 8), -ptde_invalid);
	assert_int_equal(ptd_values_watch_chain(f->v, "g_counter", NULL, 8), -ptde_invalid);
	assert_int_equal(ptd_values_watch_chain(f->v, "g_counter", l, 0), -ptde_invalid);
	/* the evaluator works as before afterwards */
	expect(f->v, "g_arr[1]", "2");
}

/* A kept value formats other contents in its type across binds (the
 * shell's watchpoint Old value/New value). */
static void test_keep(void **state)
{
	struct fx *f = *state;
	struct ptd_value *val = NULL;
	const uint8_t pt[8] = { 3, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff };
	const uint8_t c = 'z';
	char *s = NULL;
	int k1, k2;

	assert_int_equal(ptd_values_eval(f->v, "origin", &val), 0);
	k1 = ptd_values_keep(f->v, val);
	assert_true(k1 > 0);
	ptd_value_free(val);
	assert_int_equal(ptd_values_eval(f->v, "*g_msg", &val), 0);
	k2 = ptd_values_keep(f->v, val);
	assert_true(k2 > 0 && k2 != k1);
	ptd_value_free(val);
	bind(f, 0, 0); /* collects the types no one keeps */
	assert_int_equal(ptd_values_format_kept(f->v, k1, pt, sizeof(pt), 0, 1, &s), 0);
	assert_string_equal(s, "{x = 3, y = -2}");
	free(s);
	assert_int_equal(ptd_values_format_kept(f->v, k2, &c, 1, 0, 1, &s), 0);
	assert_string_equal(s, "122 'z'");
	free(s);
	/* the size must be the type's; unknown and released keys */
	assert_int_equal(ptd_values_format_kept(f->v, k1, pt, 4, 0, 1, &s), -ptde_invalid);
	ptd_values_unkeep(f->v, k1);
	assert_int_equal(ptd_values_format_kept(f->v, k1, pt, sizeof(pt), 0, 1, &s), -ptde_invalid);
	assert_int_equal(ptd_values_format_kept(f->v, 99, pt, 1, 0, 1, &s), -ptde_invalid);
	ptd_values_unkeep(f->v, 99);
	/* a released slot is used again */
	assert_int_equal(ptd_values_eval(f->v, "g_counter", &val), 0);
	assert_int_equal(ptd_values_keep(f->v, val), k1);
	ptd_value_free(val);
	/* NULL arguments */
	assert_int_equal(ptd_values_keep(NULL, NULL), -ptde_invalid);
	assert_int_equal(ptd_values_keep(f->v, NULL), -ptde_invalid);
	assert_int_equal(ptd_values_format_kept(NULL, 1, pt, 1, 0, 1, &s), -ptde_invalid);
	assert_int_equal(ptd_values_format_kept(f->v, k2, NULL, 1, 0, 1, &s), -ptde_invalid);
	ptd_values_unkeep(NULL, 1);
}

static void test_history_and_assign(void **state)
{
	struct fx *f = *state;
	struct ptd_value *val = NULL;
	char *s = NULL;

	assert_int_equal(ptd_values_eval(f->v, "g_arr", &val), 0);
	assert_int_equal(ptd_value_format(f->v, val, 0, 1, &s), 0);
	free(s);
	assert_int_equal(ptd_values_record(f->v, val), 1);
	ptd_value_free(val);
	/* the history is a snapshot: changing memory leaves $1 alone */
	expect(f->v, "g_arr[0] = 100", "100");
	expect(f->v, "g_arr", "{100, 2, 3, 4, 5}");
	expect(f->v, "$1", "{1, 2, 3, 4, 5}");
	expect(f->v, "$1[4]", "5");
	expect(f->v, "$", "{1, 2, 3, 4, 5}");
	expect(f->v, "$$0", "{1, 2, 3, 4, 5}");
	expect_error(f->v, "$$1", "History does not go back to $$1.");
	expect(f->v, "g_counter += 8", "50");
	expect(f->v, "g_ratio = 3", "3");
	expect(f->v, "g_ratio", "3");
	expect(f->v, "(char)(g_counter = 65)", "65 'A'");
	/* a bit-field keeps its neighbours */
	expect(f->v, "g_rec.mode = 17", "17");
	expect(f->v, "g_rec.flags = 5", "5");
	expect(f->v, "g_rec.mode", "17");
	expect(f->v, "g_rec.flags = 9", "1");
	assert_string_equal(ptd_values_warning(f->v), "Value does not fit in 3 bits.");
	expect(f->v, "g_rec.mode", "17");
	/* the past, a loaded trace: no writes */
	{
		struct ptd_values_target t = { 0 };

		t.symbols = f->sym;
		t.read = fake_read;
		assert_int_equal(ptd_values_bind(f->v, &t), 0);
		expect_error(f->v, "g_counter = 1",
			     "cannot write memory: the program is not running live here (the recorded "
			     "past and loaded traces are read-only)");
	}
	/* memory that refuses writes */
	bind(f, 0, 0);
	writes_allowed = 0;
	expect_error(f->v, "g_counter = 1", "Cannot access memory at address 0x404020");
}

/* Locals and arguments of sum(a, n) over a fake stack: rip at the
 * breakpoint address after the prologue, rbp/rsp in the fake page; the
 * CFA comes from the CFI (rbp + 16), the frame base from the CFA. */
static void test_locals(void **state)
{
	struct fx *f = *state;
	uint64_t entry, bp, addr_n, addr_a;
	struct ptd_value *val = NULL;
	char *s = NULL;
	int arr[4] = { 10, 20, 30, 40 };
	uint64_t arr_addr = STACK_BASE + 0x800;

	assert_int_equal(ptd_symbols_function(f->sym, "sum", &entry, &bp), 0);
	memset(&f->regs, 0, sizeof(f->regs));
	f->regs.rip = bp;
	f->regs.rbp = STACK_BASE + 0x400;
	f->regs.rsp = STACK_BASE + 0x3f0;
	bind(f, 1, 0);
	/* where the variables are, then what is there */
	assert_int_equal(ptd_values_eval(f->v, "&n", &val), 0);
	assert_int_equal(ptd_value_as_address(f->v, val, &addr_n), 0);
	ptd_value_free(val);
	assert_int_equal(ptd_values_eval(f->v, "&a", &val), 0);
	assert_int_equal(ptd_value_as_address(f->v, val, &addr_a), 0);
	ptd_value_free(val);
	assert_true(addr_n > STACK_BASE && addr_n < STACK_BASE + 0x410);
	*(int *)(stack_mem + (addr_n - STACK_BASE)) = 4;
	memcpy(stack_mem + (addr_a - STACK_BASE), &arr_addr, 8);
	memcpy(stack_mem + 0x800, arr, sizeof(arr));
	expect(f->v, "n", "4");
	expect(f->v, "*a@n", "{10, 20, 30, 40}");
	expect(f->v, "a[n - 1]", "40");
	expect(f->v, "g_counter + n", "46");
	expect_type(f->v, "a", 0, "const int *");
	assert_int_equal(ptd_values_locals(f->v, 1, &s), 0);
	assert_string_equal(s, "a = 0x7ff000000800\nn = 4\n");
	free(s);
	assert_int_equal(ptd_values_locals(f->v, 0, &s), 0);
	assert_string_equal(s, "t = 0\ni = 0\n");
	free(s);
	expect(f->v, "$rbp", "(void *) 0x7ff000000400");
	{
		char e[64];

		snprintf(e, sizeof(e), "$pc == sum + %llu", (unsigned long long)(bp - entry));
		expect(f->v, e, "1");
	}
	/* frame lines in gdb's print frame-arguments modes */
	{
		static const char *const want[] = { "a=0x7ff000000800, n=4", "a=0x7ff000000800, n=4",
						    "a=..., n=...", "..." };
		struct user_regs_struct r, k;

		for (int m = 0; m < 4; m++) {
			assert_int_equal(ptd_values_frame_args(f->v, m, &s), 0);
			assert_string_equal(s, want[m]);
			free(s);
		}
		assert_int_equal(ptd_values_frame_args(f->v, 4, &s), -ptde_invalid);
		assert_int_equal(ptd_values_frame_regs(f->v, &r, &k), 0);
		assert_int_equal(r.rbp, STACK_BASE + 0x400);
		assert_int_equal(k.rbp, 1);
		assert_int_equal(r.rip, bp);
	}
	/* a bad pointer in a local: an error at the top, <error: ...> inside */
	memset(stack_mem + (addr_a - STACK_BASE), 0x11, 8);
	expect_error(f->v, "*a", "Cannot access memory at address 0x1111111111111111");
	assert_int_equal(ptd_values_locals(f->v, 1, &s), 0);
	assert_string_equal(s, "a = 0x1111111111111111\nn = 4\n");
	free(s);
	/* only the pc known (the recorded past): what needs the CFA is unavailable */
	bind(f, 1, 1);
	expect(f->v, "n", "<unavailable>");
	expect(f->v, "$rsp", "<unavailable>");
	expect(f->v, "g_counter", "42");
	expect_error(f->v, "n + 1", "value is not available");
	assert_int_equal(ptd_values_locals(f->v, 1, &s), 0);
	assert_string_equal(s, "a = <unavailable>\nn = <unavailable>\n");
	free(s);
	assert_int_equal(ptd_values_frame_args(f->v, 1, &s), 0);
	assert_string_equal(s, "a=<unavailable>, n=<unavailable>");
	free(s);
	{
		struct user_regs_struct r, k;

		assert_int_equal(ptd_values_frame_regs(f->v, &r, &k), 0);
		assert_int_equal(k.rbp, 0);
		assert_int_equal(k.eflags, 0);
		assert_int_equal(k.rip, 1);
	}
	/* the caller's frame, unwound with the CFI: main's pc after the call */
	{
		uint64_t ret = 0x401418; /* sum's return address in main */
		struct ptd_values_target t = { 0 };
		uint64_t cfa = STACK_BASE + 0x410;

		memcpy(stack_mem + (cfa - 8 - STACK_BASE), &ret, 8);
		t.symbols = f->sym;
		t.read = fake_read;
		t.regs = &f->regs;
		t.level = 1;
		t.level_pc = ret;
		assert_int_equal(ptd_values_bind(f->v, &t), 0);
		expect(f->v, "$pc", "(void (*)()) 0x401418 <main+391>");
		expect(f->v, "$sp", "(void *) 0x7ff000000410");
		/* a level whose pc the CFI does not reach: only the pc is known */
		t.level_pc = 0x401419;
		assert_int_equal(ptd_values_bind(f->v, &t), 0);
		expect(f->v, "$sp", "<unavailable>");
		expect(f->v, "n", "<unavailable>");
	}
}

/* info address / info functions|variables|types / rbreak's matches over
 * testprogs/values (no process: globals and ELF symbols), and bad input. */
static void test_symbol_queries(void **state)
{
	struct fx *f = *state;
	struct ptd_func_match *m = NULL;
	char *s = NULL;
	int n = 0;

	assert_int_equal(ptd_values_info_address(f->v, "g_counter", &s), 0);
	assert_string_equal(s, "Symbol \"g_counter\" is static storage at address 0x404020.\n");
	free(s);
	assert_int_equal(ptd_values_info_address(f->v, "main", &s), 0);
	assert_string_equal(s, "Symbol \"main\" is a function at address 0x401291.\n");
	free(s);
	assert_int_equal(ptd_values_info_address(f->v, "GREEN", &s), 0);
	assert_string_equal(s, "Symbol \"GREEN\" is constant.\n");
	free(s);
	assert_int_equal(ptd_values_info_address(f->v, "point_t", &s), 0);
	assert_string_equal(s, "Symbol \"point_t\" is a typedef.\n");
	free(s);
	assert_int_equal(ptd_values_info_address(f->v, "_start", &s), 0);
	assert_string_equal(s, "Symbol \"_start\" is at 0x401040 in a file compiled without "
			       "debugging.\n");
	free(s);
	s = NULL;
	assert_int_equal(ptd_values_info_address(f->v, "nosuch", &s), -ptde_notfound);
	assert_null(s);
	assert_int_equal(ptd_values_info_address(f->v, "", &s), -ptde_invalid);
	assert_int_equal(ptd_values_info_address(NULL, "x", &s), -ptde_invalid);
	assert_int_equal(ptd_values_info_address(f->v, NULL, &s), -ptde_invalid);

	/* info scope at helper's entry: its argument, static and local */
	assert_int_equal(ptd_values_info_scope(f->v, 0x401250, "helper", &s), 0);
	assert_string_equal(s, "Scope for helper:\n"
			       "Symbol depth is a complex DWARF expression:\n"
			       "     0: DW_OP_fbreg -36\n"
			       ", length 4.\n"
			       "Symbol calls is in static storage at address 0x404118, length 4.\n"
			       "Symbol local is a complex DWARF expression:\n"
			       "     0: DW_OP_fbreg -20\n"
			       ", length 4.\n");
	free(s);
	assert_int_equal(ptd_values_info_scope(f->v, 0, "*0", &s), 0);
	assert_string_equal(s, "Scope for *0 contains no locals or arguments.\n");
	free(s);
	assert_int_equal(ptd_values_info_scope(NULL, 0, "x", &s), -ptde_invalid);
	assert_int_equal(ptd_values_info_scope(f->v, 0, NULL, &s), -ptde_invalid);
	assert_int_equal(ptd_values_info_scope(f->v, 0, "x", NULL), -ptde_invalid);

	assert_int_equal(ptd_values_info_symbols(f->v, PTD_INFO_FUNCTIONS, "^hel", 0, &s), 0);
	assert_string_equal(s, "All functions matching regular expression \"^hel\":\n\n"
			       "File values.c:\n98:\tstatic int helper(int);\n");
	free(s);
	assert_int_equal(ptd_values_info_symbols(f->v, PTD_INFO_VARIABLES, "total", PTD_INFO_QUIET,
						 &s), 0);
	assert_string_equal(s, "\nFile values.c:\n40:\tstatic long s_total;\n");
	free(s);
	assert_int_equal(ptd_values_info_symbols(f->v, PTD_INFO_TYPES, "^point_t$", 0, &s), 0);
	assert_string_equal(s, "All types matching regular expression \"^point_t$\":\n\n"
			       "File values.c:\n37:\ttypedef struct point point_t;\n");
	free(s);
	assert_int_equal(ptd_values_info_symbols(f->v, PTD_INFO_FUNCTIONS, "plt$", 0, &s), 0);
	assert_string_equal(s, "All functions matching regular expression \"plt$\":\n\n"
			       "Non-debugging symbols:\n0x0000000000401030  printf@plt\n");
	free(s);
	s = NULL;
	assert_int_equal(ptd_values_info_symbols(f->v, PTD_INFO_FUNCTIONS, "[", 0, &s),
			 -ptde_invalid);
	assert_null(s);
	assert_int_equal(ptd_values_info_symbols(f->v, 7, NULL, 0, &s), -ptde_invalid);
	assert_int_equal(ptd_values_info_symbols(NULL, PTD_INFO_TYPES, NULL, 0, &s), -ptde_invalid);

	assert_int_equal(ptd_values_functions_matching(f->v, "^make_", &m, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(m[0].name, "make_big");
	assert_string_equal(m[0].decl, "struct big make_big(long);");
	assert_non_null(strstr(m[0].file, "values.c"));
	assert_string_equal(m[1].name, "make_point");
	ptd_values_matches_free(m, n);
	assert_int_equal(ptd_values_functions_matching(f->v, "^_start$", &m, &n), 0);
	assert_int_equal(n, 1);
	assert_null(m[0].file);
	assert_int_equal(m[0].addr, 0x401040);
	ptd_values_matches_free(m, n);
	assert_int_equal(ptd_values_functions_matching(NULL, "x", &m, &n), -ptde_invalid);
	ptd_values_matches_free(NULL, 0);
}

static void test_no_debug_info(void **state)
{
	struct ptd_values *v = NULL;
	struct ptd_values_target t = { 0 };

	(void)state;
	assert_int_equal(ptd_values_alloc(&v), 0);
	t.read = fake_read;
	assert_int_equal(ptd_values_bind(v, &t), 0);
	expect_error(v, "g_counter", "No symbol table is loaded.  Use the \"file\" command.");
	expect(v, "2 + 2", "4");
	ptd_values_free(v);
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_literals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_printf_and_convenience, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convenience_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_globals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history_and_assign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symbol_queries, setup, teardown),
		cmocka_unit_test(test_no_debug_info),
	};

	snprintf(prog, sizeof(prog), "%s/values", d ? d : "testprogs/build");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
