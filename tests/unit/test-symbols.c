/*
 * Unit tests for src/symbols.  A small C program is written and compiled
 * (-g -O0, non-PIE and PIE) into a temporary directory, and every answer
 * is checked against numbers computed another way: function addresses
 * and sizes from `nm -S`, PLT entries from `objdump -d`, line-table rows
 * from `readelf --debug-dump=rawline`.  The breakpoint rules follow
 * gdb 13 (checked by hand: "break add3" -> 0x401133 line 8, "break
 * t.c:9" -> line 10, "break t.c:16" -> main's post-prologue line 18),
 * expressed here through the readelf rows so the test does not depend on
 * addresses.  The live-process case uses the test binary itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ptdbg/ptdbg.h"
#include "symbols/symbols.h"

static const char test_src[] =
	"/* ptdbg symbols test program: line numbers matter */\n" /* 1 */
	"#include <stdio.h>\n"                                     /* 2 */
	"\n"                                                       /* 3 */
	"int counter;\n"                                           /* 4 */
	"\n"                                                       /* 5 */
	"static int add3(int a, int b, int c)\n"                   /* 6 */
	"{\n"                                                      /* 7 */
	"\tint s = a + b;\n"                                       /* 8 */
	"\n"                                                       /* 9 */
	"\ts += c;\n"                                              /* 10 */
	"\treturn s;\n"                                            /* 11 */
	"}\n"                                                      /* 12 */
	"\n"                                                       /* 13 */
	"int twice(int x) { return add3(x, x, 0); }\n"             /* 14 */
	"\n"                                                       /* 15 */
	"int main(int argc, char **argv)\n"                        /* 16 */
	"{\n"                                                      /* 17 */
	"\tint i, t = 0;\n"                                        /* 18 */
	"\n"                                                       /* 19 */
	"\tfor (i = 0; i < argc; i++)\n"                           /* 20 */
	"\t\tt += twice(i);\n"                                     /* 21 */
	"\tcounter = t;\n"                                         /* 22 */
	"\tprintf(\"%d\\n\", t);\n"                                /* 23 */
	"\treturn 0;\n"                                            /* 24 */
	"}\n";                                                     /* 25 */

#define MAX_ROWS 256

struct row {
	uint64_t addr;
	int line; /* 0 for the end of a sequence */
	int stmt;
};

struct fixture {
	char dir[64];
	char src[96], exe[96], pie[96];
	struct row rows[MAX_ROWS];
	int nrows;
};

static struct fixture fx;
static int have_fixture;

static int run(const char *cmd)
{
	int r = system(cmd);

	return r == 0 ? 0 : -1;
}

/* `nm -S` of @exe: address and size of symbol @name. */
static int nm_lookup(const char *exe, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[256], line[512];
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "nm -S %s", exe);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, s;
		char type, nm[256];

		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, nm) == 4 && !strcmp(nm, name)) {
			*addr = a;
			if (size)
				*size = s;
			found = 1;
		} else if (sscanf(line, "%llx %c %255s", &a, &type, nm) == 3 && !strcmp(nm, name)) {
			*addr = a; /* a symbol without a size */
			if (size)
				*size = 0;
			found = 1;
		}
	}
	pclose(p);
	return found ? 0 : -1;
}

/* `objdump -d` of @exe: address of the "<name@plt>:" entry. */
static int objdump_plt(const char *exe, const char *name, uint64_t *addr)
{
	char cmd[256], line[512], want[128];
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "objdump -d %s", exe);
	snprintf(want, sizeof(want), "<%s@plt>:", name);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char tag[256];

		if (sscanf(line, "%llx %255s", &a, tag) == 2 && !strcmp(tag, want)) {
			*addr = a;
			found = 1;
		}
	}
	pclose(p);
	return found ? 0 : -1;
}

/*
 * The line-table entries gdb keeps, computed from readelf's dump of the
 * raw line program: every row emitted by a special opcode or "Copy", with
 * the discriminator set just before it; a row that repeats the line of
 * the row before is dropped when that line has had a non-zero
 * discriminator (gdb's rule; gcc marks loop bodies this way).
 */
static int read_rows(const char *exe, struct row *rows, int max)
{
	char cmd[256], line[512];
	FILE *p;
	int n = 0, cur_line = 1, prev_line = 0, stmt = 1, nz = 0, kept_line = 0;
	unsigned disc = 0;
	unsigned long long addr = 0;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=rawline %s", exe);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p) && n < max) {
		const char *to = strstr(line, " to 0x");
		int emit = 0, end = 0, d, v;
		char *q;

		if (strstr(line, "set Address to 0x") || strstr(line, "Advance PC by")) {
			if (to)
				addr = strtoull(to + 4, NULL, 16);
		} else if ((q = strstr(line, "Special opcode"))) {
			if (to && sscanf(to + 4, "%llx and Line by %d to %d", &addr, &d, &v) == 3)
				cur_line = v;
			emit = 1;
		} else if ((q = strstr(line, "Advance Line by"))) {
			if (sscanf(q, "Advance Line by %d to %d", &d, &v) == 2)
				cur_line = v;
		} else if ((q = strstr(line, "set Discriminator to"))) {
			disc = (unsigned)strtoul(q + 21, NULL, 10);
		} else if ((q = strstr(line, "Set is_stmt to"))) {
			stmt = atoi(q + 15) != 0;
		} else if (strstr(line, "] Copy")) {
			emit = 1;
		} else if (strstr(line, "End of Sequence")) {
			emit = end = 1;
		}
		if (!emit)
			continue;
		if (cur_line != prev_line)
			nz = disc != 0;
		else
			nz |= disc != 0;
		prev_line = cur_line;
		disc = 0;
		if (!end && cur_line == kept_line && nz)
			continue;
		rows[n].addr = addr;
		rows[n].line = end ? 0 : cur_line;
		rows[n].stmt = stmt;
		n++;
		kept_line = end ? 0 : cur_line;
		if (end) {
			cur_line = 1;
			prev_line = 0;
			nz = 0;
			stmt = 1;
		}
	}
	pclose(p);
	return n;
}

static int setup(void **state)
{
	char cmd[512];
	FILE *f;

	snprintf(fx.dir, sizeof(fx.dir), "/tmp/ptd-symtest-XXXXXX");
	if (!mkdtemp(fx.dir))
		return -1;
	snprintf(fx.src, sizeof(fx.src), "%s/t.c", fx.dir);
	snprintf(fx.exe, sizeof(fx.exe), "%s/t", fx.dir);
	snprintf(fx.pie, sizeof(fx.pie), "%s/tpie", fx.dir);
	f = fopen(fx.src, "w");
	if (!f)
		return -1;
	fputs(test_src, f);
	fclose(f);
	/* Compile in the directory so DW_AT_name is plain "t.c". */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cc -g -O0 -no-pie -fno-stack-protector -o t t.c && "
		 "cc -g -O0 -fPIE -pie -fno-stack-protector -o tpie t.c",
		 fx.dir);
	if (run(cmd) == 0) {
		fx.nrows = read_rows(fx.exe, fx.rows, MAX_ROWS);
		have_fixture = fx.nrows > 5;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	if (fx.dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", fx.dir);
		run(cmd);
	}
	return 0;
}

#define NEED_FIXTURE()                                                   \
	do {                                                             \
		if (!have_fixture) {                                     \
			print_message("no C compiler or binutils: skipped\n"); \
			skip();                                          \
		}                                                        \
	} while (0)

static int ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

/* The first row after @entry's own rows: gcc -O0's post-prologue row. */
static uint64_t second_row_after(uint64_t entry)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < fx.nrows; i++)
		if (fx.rows[i].addr > entry && fx.rows[i].addr < best)
			best = fx.rows[i].addr;
	return best;
}

static int line_of_row_at(uint64_t addr)
{
	int i, ln = -1;

	for (i = 0; i < fx.nrows; i++)
		if (fx.rows[i].addr == addr && fx.rows[i].line)
			ln = fx.rows[i].line; /* the last row at an address wins */
	return ln;
}

static void test_functions_and_breakpoints(void **state)
{
	static const char *const fns[] = { "add3", "twice", "main" };
	struct ptd_symbols *s;
	size_t i;

	NEED_FIXTURE();
	assert_int_equal(ptd_symbols_alloc_file(&s, fx.exe, 0), 0);
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		uint64_t nm_addr, nm_size, entry = 0, bp = 0;
		struct ptd_line l;

		assert_int_equal(nm_lookup(fx.exe, fns[i], &nm_addr, &nm_size), 0);
		assert_int_equal(ptd_symbols_function(s, fns[i], &entry, &bp), 0);
		assert_int_equal(entry, nm_addr);
		/* gcc -O0 with a frame pointer: gdb breaks at the row that
		 * follows the prologue row. */
		assert_int_equal(bp, second_row_after(entry));
		assert_true(bp > entry && bp < entry + nm_size);
		assert_int_equal(ptd_symbols_line(s, bp, &l), 0);
		assert_int_equal(l.line, line_of_row_at(bp));
	}
	/* The known lines of this program (gdb: add3 -> 8, main -> 18). */
	{
		uint64_t e, bp;
		struct ptd_line l;

		assert_int_equal(ptd_symbols_function(s, "add3", &e, &bp), 0);
		assert_int_equal(ptd_symbols_line(s, bp, &l), 0);
		assert_int_equal(l.line, 8);
		assert_int_equal(ptd_symbols_function(s, "main", &e, &bp), 0);
		assert_int_equal(ptd_symbols_line(s, bp, &l), 0);
		assert_int_equal(l.line, 18);
		/* NULL outputs are allowed. */
		assert_int_equal(ptd_symbols_function(s, "main", NULL, NULL), 0);
	}
	assert_int_equal(ptd_symbols_function(s, "no_such_function", NULL, NULL), -ptde_notfound);
	/* printf is only a PLT stub here, not a function of this file. */
	assert_int_equal(ptd_symbols_function(s, "printf", NULL, NULL), -ptde_notfound);
	ptd_symbols_free(s);
}

static void test_lookup(void **state)
{
	struct ptd_symbols *s;
	struct ptd_symbol sym;
	uint64_t a, sz, plt;

	NEED_FIXTURE();
	assert_int_equal(ptd_symbols_alloc_file(&s, fx.exe, 0), 0);

	assert_int_equal(nm_lookup(fx.exe, "add3", &a, &sz), 0);
	assert_int_equal(ptd_symbols_lookup(s, a, &sym), 0);
	assert_string_equal(sym.name, "add3");
	assert_int_equal(sym.start, a);
	assert_int_equal(sym.size, sz);
	assert_int_equal(sym.offset, 0);
	assert_true(ends_with(sym.module, "/t"));
	assert_int_equal(ptd_symbols_lookup(s, a + sz - 1, &sym), 0);
	assert_string_equal(sym.name, "add3");
	assert_int_equal(sym.offset, sz - 1);
	assert_int_equal(ptd_symbols_func_start(s, a + sz - 1), a);
	assert_int_equal(ptd_symbols_func_start(s, a), a);

	assert_int_equal(nm_lookup(fx.exe, "counter", &a, &sz), 0);
	assert_int_equal(ptd_symbols_lookup(s, a, &sym), 0);
	assert_string_equal(sym.name, "counter");

	/* Synthetic PLT names, as gdb shows "call 0x401030 <printf@plt>". */
	assert_int_equal(objdump_plt(fx.exe, "printf", &plt), 0);
	assert_int_equal(ptd_symbols_lookup(s, plt, &sym), 0);
	assert_string_equal(sym.name, "printf@plt");
	assert_int_equal(sym.start, plt);

	assert_int_equal(ptd_symbols_lookup(s, 0x10, &sym), -ptde_notfound);
	assert_int_equal(ptd_symbols_func_start(s, 0x10), 0);
	assert_int_equal(ptd_symbols_func_start(NULL, a), 0);
	ptd_symbols_free(s);
}

/* `readelf -rW` of @exe: the GOT slot of @name's JUMP_SLOT relocation. */
static int readelf_got(const char *exe, const char *name, uint64_t *addr)
{
	char cmd[256], line[512];
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "readelf -rW %s", exe);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, info, val;
		char type[64], sym[256];

		if (sscanf(line, "%llx %llx %63s %llx %255s", &a, &info, type, &val, sym) == 5 &&
		    !strcmp(type, "R_X86_64_JUMP_SLOT") && !strncmp(sym, name, strlen(name)) &&
		    (sym[strlen(name)] == '@' || sym[strlen(name)] == '\0')) {
			*addr = a;
			found = 1;
		}
	}
	pclose(p);
	return found ? 0 : -1;
}

/* The names disassembly shows: "<add3+5>", "<printf@plt>", "<printf@got.plt>". */
static void test_symbolize(void **state)
{
	struct ptd_symbols *s;
	uint64_t a, sz, plt = 0, got = 0, gotplt_label = 0;
	char out[64];

	NEED_FIXTURE();
	assert_int_equal(ptd_symbols_alloc_file(&s, fx.exe, 0), 0);
	assert_int_equal(nm_lookup(fx.exe, "add3", &a, &sz), 0);
	assert_int_equal(ptd_symbols_symbolize(s, a, out, sizeof(out)), 0);
	assert_string_equal(out, "add3");
	assert_int_equal(ptd_symbols_symbolize(s, a + 5, out, sizeof(out)), 0);
	assert_string_equal(out, "add3+5");
	assert_int_equal(objdump_plt(fx.exe, "printf", &plt), 0);
	assert_int_equal(ptd_symbols_symbolize(s, plt, out, sizeof(out)), 0);
	assert_string_equal(out, "printf@plt");
	assert_int_equal(ptd_symbols_symbolize(s, plt + 6, out, sizeof(out)), 0);
	assert_string_equal(out, "printf@plt+6");
	assert_int_equal(readelf_got(fx.exe, "printf", &got), 0);
	assert_int_equal(ptd_symbols_symbolize(s, got, out, sizeof(out)), 0);
	assert_string_equal(out, "printf@got.plt");
	/* A sizeless data label names nothing (gdb prints a bare address). */
	assert_int_equal(nm_lookup(fx.exe, "_GLOBAL_OFFSET_TABLE_", &gotplt_label, NULL), 0);
	assert_int_equal(ptd_symbols_symbolize(s, gotplt_label + 8, out, sizeof(out)),
			 -ptde_notfound);
	assert_int_equal(ptd_symbols_symbolize(s, 0x10, out, sizeof(out)), -ptde_notfound);
	assert_int_equal(ptd_symbols_symbolize(NULL, a, out, sizeof(out)), -ptde_invalid);
	ptd_symbols_free(s);
}

static void test_lines_match_readelf(void **state)
{
	struct ptd_symbols *s;
	int i, checked = 0;

	NEED_FIXTURE();
	assert_int_equal(ptd_symbols_alloc_file(&s, fx.exe, 0), 0);
	for (i = 0; i < fx.nrows; i++) {
		const struct row *r = &fx.rows[i];
		struct ptd_line l;
		uint64_t next = UINT64_MAX;
		int j, want;

		if (!r->line)
			continue;
		/* Each kept row is one range: it ends where the next kept
		 * row's address starts. */
		for (j = 0; j < fx.nrows; j++)
			if (fx.rows[j].addr > r->addr && fx.rows[j].addr < next)
				next = fx.rows[j].addr;
		want = line_of_row_at(r->addr);
		assert_int_equal(ptd_symbols_line(s, r->addr, &l), 0);
		assert_int_equal(l.line, want);
		assert_int_equal(l.lo, r->addr);
		assert_int_equal(l.hi, next);
		assert_true(l.is_stmt);
		assert_true(ends_with(l.file, "t.c"));
		if (next - r->addr > 1) {
			assert_int_equal(ptd_symbols_line(s, next - 1, &l), 0);
			assert_int_equal(l.line, want);
			assert_int_equal(l.lo, r->addr);
		}
		checked++;
	}
	assert_true(checked > 10);
	{
		struct ptd_line l;
		uint64_t plt;

		/* PLT code has no line information. */
		assert_int_equal(objdump_plt(fx.exe, "printf", &plt), 0);
		assert_int_equal(ptd_symbols_line(s, plt, &l), -ptde_notfound);
		assert_int_equal(ptd_symbols_line(s, 0x10, &l), -ptde_notfound);
	}
	ptd_symbols_free(s);
}

static uint64_t lowest_row_of_line(int line)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < fx.nrows; i++)
		if (fx.rows[i].line == line && fx.rows[i].stmt && fx.rows[i].addr < best)
			best = fx.rows[i].addr;
	return best;
}

static void test_file_line(void **state)
{
	struct ptd_symbols *s;
	uint64_t addr, entry, bp;
	int actual;

	NEED_FIXTURE();
	assert_int_equal(ptd_symbols_alloc_file(&s, fx.exe, 0), 0);

	assert_int_equal(ptd_symbols_file_line(s, "t.c", 8, &addr, &actual), 0);
	assert_int_equal(addr, lowest_row_of_line(8));
	assert_int_equal(actual, 8);
	/* A loop line has several rows: the lowest address. */
	assert_int_equal(ptd_symbols_file_line(s, "t.c", 20, &addr, &actual), 0);
	assert_int_equal(addr, lowest_row_of_line(20));
	assert_int_equal(actual, 20);
	/* A blank line moves to the next line with code. */
	assert_int_equal(ptd_symbols_file_line(s, "t.c", 9, &addr, &actual), 0);
	assert_int_equal(addr, lowest_row_of_line(10));
	assert_int_equal(actual, 10);
	/* Full path and a directory suffix match too. */
	assert_int_equal(ptd_symbols_file_line(s, fx.src, 10, &addr, &actual), 0);
	assert_int_equal(addr, lowest_row_of_line(10));
	/* A line before main's body lands after main's prologue, like gdb. */
	assert_int_equal(ptd_symbols_function(s, "main", &entry, &bp), 0);
	assert_int_equal(ptd_symbols_file_line(s, "t.c", 16, &addr, &actual), 0);
	assert_int_equal(addr, bp);
	assert_int_equal(actual, 18);
	/* The function's own first line also means its breakpoint address. */
	assert_int_equal(ptd_symbols_function(s, "add3", &entry, &bp), 0);
	assert_int_equal(ptd_symbols_file_line(s, "t.c", line_of_row_at(entry), &addr, &actual), 0);
	assert_int_equal(addr, bp);
	assert_int_equal(actual, 8);

	assert_int_equal(ptd_symbols_file_line(s, "t.c", 26, &addr, &actual), -ptde_notfound);
	assert_int_equal(ptd_symbols_file_line(s, "other.c", 8, &addr, &actual), -ptde_notfound);
	/* "c" is not a path suffix of "t.c" at a '/' boundary. */
	assert_int_equal(ptd_symbols_file_line(s, "c", 8, &addr, &actual), -ptde_notfound);
	assert_int_equal(ptd_symbols_file_line(s, ".c", 8, &addr, &actual), -ptde_notfound);
	ptd_symbols_free(s);
}

static void test_source_line(void **state)
{
	struct ptd_symbols *s;
	struct ptd_line l;
	uint64_t entry, bp;
	char text[128];

	NEED_FIXTURE();
	assert_int_equal(ptd_symbols_alloc_file(&s, fx.exe, 0), 0);
	assert_int_equal(ptd_symbols_function(s, "add3", &entry, &bp), 0);
	assert_int_equal(ptd_symbols_line(s, bp, &l), 0);
	/* The DWARF file name leads to the text. */
	assert_int_equal(ptd_symbols_source_line(s, l.file, 10, text, sizeof(text)), 0);
	assert_string_equal(text, "\ts += c;");
	assert_int_equal(ptd_symbols_source_line(s, l.file, 1, text, sizeof(text)), 0);
	assert_string_equal(text, "/* ptdbg symbols test program: line numbers matter */");
	assert_int_equal(ptd_symbols_source_line(s, l.file, 25, text, sizeof(text)), 0);
	assert_string_equal(text, "}");
	assert_int_equal(ptd_symbols_source_line(s, l.file, 9, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	/* Cached: the same answer again, and truncation keeps a NUL. */
	assert_int_equal(ptd_symbols_source_line(s, l.file, 14, text, 6), 0);
	assert_string_equal(text, "int t");
	assert_int_equal(ptd_symbols_source_line(s, l.file, 26, text, sizeof(text)), -ptde_notfound);
	assert_int_equal(ptd_symbols_source_line(s, l.file, 0, text, sizeof(text)), -ptde_notfound);
	assert_int_equal(ptd_symbols_source_line(s, "/nonexistent/x.c", 1, text, sizeof(text)),
			 -ptde_notfound);
	ptd_symbols_free(s);
}

static void test_pie_bias_and_add_file(void **state)
{
	const uint64_t bias = 0x555555554000ull, base2 = 0x7f0000000000ull;
	struct ptd_symbols *s;
	struct ptd_symbol sym;
	struct ptd_line l;
	uint64_t a, sz, entry, bp, a_exe;

	NEED_FIXTURE();
	assert_int_equal(nm_lookup(fx.pie, "twice", &a, &sz), 0);
	assert_true(a < 0x100000); /* a PIE: link-time addresses start near 0 */

	assert_int_equal(ptd_symbols_alloc_file(&s, fx.pie, bias), 0);
	assert_int_equal(ptd_symbols_lookup(s, a + bias + 2, &sym), 0);
	assert_string_equal(sym.name, "twice");
	assert_int_equal(sym.start, a + bias);
	assert_int_equal(sym.offset, 2);
	assert_int_equal(ptd_symbols_function(s, "twice", &entry, &bp), 0);
	assert_int_equal(entry, a + bias);
	assert_int_equal(ptd_symbols_line(s, bp, &l), 0);
	assert_int_equal(l.line, 14);
	assert_int_equal(ptd_symbols_lookup(s, a, &sym), -ptde_notfound);
	ptd_symbols_free(s);

	/* Two modules: the non-PIE at its link address, the PIE mapped at base2. */
	assert_int_equal(ptd_symbols_alloc_file(&s, fx.exe, 0), 0);
	assert_int_equal(ptd_symbols_add_file(s, fx.pie, base2, base2 + 0x10000), 0);
	assert_int_equal(ptd_symbols_lookup(s, a + base2, &sym), 0);
	assert_string_equal(sym.name, "twice");
	assert_true(ends_with(sym.module, "/tpie"));
	assert_int_equal(nm_lookup(fx.exe, "twice", &a_exe, NULL), 0);
	assert_int_equal(ptd_symbols_lookup(s, a_exe, &sym), 0);
	assert_true(ends_with(sym.module, "/t"));
	assert_int_equal(ptd_symbols_line(s, a + base2, &l), 0);
	assert_int_equal(l.line, 14);
	/* A name defined in both: the first file (the executable) wins. */
	assert_int_equal(ptd_symbols_function(s, "twice", &entry, NULL), 0);
	assert_int_equal(entry, a_exe);
	assert_int_equal(ptd_symbols_refresh(s), 0); /* no-op for file sets */
	assert_int_equal(ptd_symbols_lookup(s, a + base2, &sym), 0);
	assert_int_equal(ptd_symbols_add_file(s, "/nonexistent/lib.so", base2, base2 + 1),
			 -ptde_notfound);
	ptd_symbols_free(s);
}

/* A function of this test binary whose source line we know. */
int ptd_symtest_marker(int x);
static const int marker_line = __LINE__ + 1;
__attribute__((noinline, used)) int ptd_symtest_marker(int x) { return x * 3 + 1; }

static void test_live_self(void **state)
{
	struct ptd_symbols *s;
	struct ptd_symbol sym;
	struct ptd_line l;
	uint64_t addr = (uint64_t)(uintptr_t)&ptd_symtest_marker, entry;
	char exe[512];
	ssize_t k;

	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(k > 0);
	exe[k] = '\0';

	assert_int_equal(ptd_symbols_alloc_pid(&s, getpid()), 0);
	assert_int_equal(ptd_symbols_lookup(s, addr, &sym), 0);
	assert_string_equal(sym.name, "ptd_symtest_marker");
	assert_int_equal(sym.start, addr);
	assert_string_equal(sym.module, exe);
	assert_int_equal(ptd_symbols_func_start(s, addr + 1), addr);
	assert_int_equal(ptd_symbols_line(s, addr, &l), 0);
	assert_true(ends_with(l.file, "test-symbols.c"));
	assert_int_equal(l.line, marker_line);
	assert_int_equal(ptd_symbols_function(s, "ptd_symtest_marker", &entry, NULL), 0);
	assert_int_equal(entry, addr);
	/* libc is mapped too and has dynamic symbols. */
	assert_int_equal(ptd_symbols_lookup(s, (uint64_t)(uintptr_t)&getpid, &sym), 0);
	assert_true(strstr(sym.name, "getpid") != NULL);

	assert_int_equal(ptd_symbols_refresh(s), 0);
	assert_int_equal(ptd_symbols_lookup(s, addr, &sym), 0);
	assert_string_equal(sym.name, "ptd_symtest_marker");
	assert_int_equal(ptd_symtest_marker(1), 4);
	ptd_symbols_free(s);
}

/* Inlined code (-O2, always_inline): the DW_TAG_inlined_subroutine chain
 * at each pc of the function they are inlined into, innermost first, with
 * the lines they are inlined at; the CFA register of ordinary code. */
static const char inline_src[] =
	"static volatile int sink;\n"                                           /* 1 */
	"static inline __attribute__((always_inline)) int sq(int x)\n"         /* 2 */
	"{ int r = x * x; sink = r; return r; }\n"                             /* 3 */
	"static inline __attribute__((always_inline)) int sumsq(int a, int b)\n" /* 4 */
	"{\n"                                                                    /* 5 */
	"\tint s = sq(a);\n"                                                    /* 6 */
	"\treturn s + sq(b);\n"                                                 /* 7 */
	"}\n"                                                                    /* 8 */
	"__attribute__((noinline)) int comp(int n)\n"                           /* 9 */
	"{\n"                                                                    /* 10 */
	"\tint t = 0;\n"                                                        /* 11 */
	"\tfor (int i = 0; i < n; i++)\n"                                       /* 12 */
	"\t\tt += sumsq(i, i + 1);\n"                                          /* 13 */
	"\treturn t;\n"                                                         /* 14 */
	"}\n"                                                                    /* 15 */
	"int main(void) { return comp(3) == 5 ? 0 : 1; }\n";                     /* 16 */

/* C's second base B: a call of get through B's vtable goes to the
 * non-virtual thunk, which adjusts `this` and jumps to C::get; `delete`
 * through B goes to the thunk of C's deleting destructor. */
static const char thunk_src[] =
	"struct A { virtual int a() { return 1; } long x = 0; };\n"
	"struct B { virtual int get() { return 2; } virtual ~B() {} };\n"
	"struct C : A, B { int get() override { return 3; } ~C() override {} };\n"
	"int call(B *b) { return b->get(); }\n"
	"int main() { C c; B *p = new C; delete p; return call(&c) == 3 ? 0 : 1; }\n";

/* The thunk leads to C::get (as demangled, "non-virtual thunk to
 * C::get()"), where gdb's step goes; a function that is no thunk leads
 * nowhere.  The destructors' thunks lead to "C::~C()", the name of the
 * deleting (D0) and the complete (D1) destructor both: gdb's minimal
 * symbol lookup takes the one last by address. */
static void test_thunk_target(void **state)
{
	char src[128], exe[128], cmd[512];
	struct ptd_symbols *s;
	uint64_t thunk, get, t = 0, d0, d1, d0_thunk, d1_thunk;
	FILE *f;

	(void)state;
	NEED_FIXTURE();
	snprintf(src, sizeof(src), "%s/thunk.cc", fx.dir);
	snprintf(exe, sizeof(exe), "%s/thunk", fx.dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(thunk_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "c++ -g -O0 -no-pie -fno-pie -o %s %s 2>/dev/null", exe, src);
	if (run(cmd) < 0) {
		print_message("no C++ compiler: skipped\n");
		skip();
	}
	assert_int_equal(nm_lookup(exe, "_ZThn16_N1C3getEv", &thunk, NULL), 0);
	assert_int_equal(nm_lookup(exe, "_ZN1C3getEv", &get, NULL), 0);
	assert_int_equal(ptd_symbols_alloc_file(&s, exe, 0), 0);
	assert_int_equal(ptd__symbols_thunk_target(s, thunk, &t), 0);
	assert_int_equal(t, get);
	assert_int_equal(nm_lookup(exe, "_ZN1CD0Ev", &d0, NULL), 0);
	assert_int_equal(nm_lookup(exe, "_ZN1CD1Ev", &d1, NULL), 0);
	assert_int_equal(nm_lookup(exe, "_ZThn16_N1CD0Ev", &d0_thunk, NULL), 0);
	assert_int_equal(nm_lookup(exe, "_ZThn16_N1CD1Ev", &d1_thunk, NULL), 0);
	assert_int_not_equal(d0, d1);
	assert_int_equal(ptd__symbols_thunk_target(s, d0_thunk, &t), 0);
	assert_int_equal(t, d0 > d1 ? d0 : d1);
	assert_int_equal(ptd__symbols_thunk_target(s, d1_thunk, &t), 0);
	assert_int_equal(t, d0 > d1 ? d0 : d1);
	assert_int_equal(ptd__symbols_thunk_target(s, get, &t), -ptde_notfound);
	assert_int_equal(ptd__symbols_thunk_target(s, thunk + 1, &t), -ptde_notfound);
	assert_int_equal(ptd__symbols_thunk_target(NULL, thunk, &t), -ptde_invalid);
	ptd_symbols_free(s);
}

/* gcc -O2 moves the unlikely path of check out of line, into
 * check.cold (before check in .text): one function in two ranges. */
static const char cold_src[] =
	"__attribute__((cold, noinline)) void oops(int v) { __asm__ volatile(\"\" : : \"r\"(v)); }\n"
	"volatile int sink;\n"
	"__attribute__((noinline)) int check(int v)\n"
	"{\n"
	"\tif (__builtin_expect(v < 0, 0)) {\n"
	"\t\toops(v);\n"
	"\t\tsink = v;\n"
	"\t\treturn -1;\n"
	"\t}\n"
	"\treturn v * 2;\n"
	"}\n"
	"int main(int argc, char **argv) { return check(argc - 2) + (argv != 0); }\n";

/* Both parts are named after the function (its entry, as gdb's block
 * lookup); the start of the range each address is in is its part's own
 * (gdb's find_pc_partial_function, which reverse stepping relies on). */
static void test_cold_part(void **state)
{
	char src[128], exe[128], cmd[512];
	struct ptd_symbols *s;
	struct ptd_symbol sym;
	uint64_t fn, fsize, cold, csize, lo = 0;

	(void)state;
	NEED_FIXTURE();
	snprintf(src, sizeof(src), "%s/cold.c", fx.dir);
	snprintf(exe, sizeof(exe), "%s/cold", fx.dir);
	{
		FILE *f = fopen(src, "w");

		assert_non_null(f);
		fputs(cold_src, f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "cc -g -O2 -no-pie -fno-pie -o %s %s", exe, src);
	assert_int_equal(run(cmd), 0);
	assert_int_equal(nm_lookup(exe, "check", &fn, &fsize), 0);
	if (nm_lookup(exe, "check.cold", &cold, &csize) < 0) {
		print_message("this compiler made no check.cold: skipped\n");
		skip();
	}
	assert_int_equal(ptd_symbols_alloc_file(&s, exe, 0), 0);
	assert_int_equal(ptd_symbols_lookup(s, cold + 1, &sym), 0);
	assert_string_equal(sym.name, "check");
	assert_int_equal(sym.start, fn);
	assert_int_equal(ptd__symbols_range_start(s, cold, &lo), 0);
	assert_int_equal(lo, cold);
	assert_int_equal(ptd__symbols_range_start(s, cold + 1, &lo), 0);
	assert_int_equal(lo, cold);
	assert_int_equal(ptd__symbols_range_start(s, fn + 1, &lo), 0);
	assert_int_equal(lo, fn);
	assert_int_equal(ptd__symbols_range_start(s, fn, &lo), 0);
	assert_int_equal(lo, fn);
	assert_int_equal(ptd__symbols_range_start(NULL, fn, &lo), -ptde_invalid);
	assert_int_equal(ptd__symbols_range_start(s, fn, NULL), -ptde_invalid);
	ptd_symbols_free(s);
}

static void test_inlined(void **state)
{
	char src[128], exe[128], cmd[512];
	struct ptd_symbols *s;
	struct ptd_inline in[4];
	uint64_t a, size, pc;
	int depth2 = 0, lines6 = 0, lines7 = 0, starts = 0;
	FILE *f;

	(void)state;
	NEED_FIXTURE();
	snprintf(src, sizeof(src), "%s/inl.c", fx.dir);
	snprintf(exe, sizeof(exe), "%s/inl", fx.dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(inline_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -g -O2 -no-pie -fno-pie -o %s %s", exe, src);
	assert_int_equal(run(cmd), 0);
	assert_int_equal(ptd_symbols_alloc_file(&s, exe, 0), 0);
	assert_int_equal(nm_lookup(exe, "comp", &a, &size), 0);
	assert_true(size > 0);
	for (pc = a; pc < a + size; pc++) {
		int n = ptd_symbols_inlined(s, pc, in, 4);

		assert_true(n >= 0 && n <= 2);
		if (n == 2) {
			/* sq inlined into sumsq (at line 6 or 7), into comp at 13 */
			depth2++;
			assert_string_equal(in[0].name, "sq");
			assert_string_equal(in[1].name, "sumsq");
			assert_true(in[0].call_line == 6 || in[0].call_line == 7);
			lines6 += in[0].call_line == 6;
			lines7 += in[0].call_line == 7;
			assert_int_equal(in[1].call_line, 13);
			assert_non_null(in[0].call_file);
			assert_non_null(strstr(in[1].call_file, "inl.c"));
		}
		/* the count is capped by max */
		assert_true(ptd_symbols_inlined(s, pc, in, 1) == (n > 0));
		{
			/* the same blocks with gdb's entry pcs: where a block
			 * starts (its entry, or pc-1 outside it) it "starts",
			 * and the blocks around a block that does not start
			 * are not looked at */
			struct ptd_iblock b[PTD_ICHAIN_MAX], prev[PTD_ICHAIN_MAX];
			int k = ptd__symbols_inline_chain(s, pc, b, PTD_ICHAIN_MAX);
			int np = ptd__symbols_inline_chain(s, pc - 1, prev, PTD_ICHAIN_MAX);

			assert_int_equal(k, n);
			for (int i = 0; i < k; i++) {
				assert_string_equal(b[i].name, in[i].name);
				assert_int_equal(b[i].call_line, in[i].call_line);
				assert_true(b[i].entry >= a && b[i].entry < a + size);
				if (b[i].entry == pc && (i == 0 || b[i - 1].starts))
					assert_true(b[i].starts);
				if (i > 0 && !b[i - 1].starts)
					assert_false(b[i].starts);
			}
			if (k > 0 && np == k && prev[0].entry == b[0].entry && b[0].entry != pc &&
			    prev[0].call_line == b[0].call_line && !strcmp(prev[0].name, b[0].name))
				assert_false(b[0].starts); /* inside since pc-1 */
			starts += k > 0 && b[0].starts;
		}
	}
	assert_true(starts > 0);
	assert_int_equal(ptd__symbols_inline_chain(NULL, a, NULL, 4), 0);
	assert_true(depth2 > 0);
	assert_true(lines6 > 0 && lines7 > 0);
	/* comp's entry is its own code; its CFA is computed from %rsp */
	assert_int_equal(ptd_symbols_inlined(s, a, in, 4), 0);
	assert_int_equal(ptd_symbols_cfa_reg(s, a), 7);
	assert_int_equal(ptd_symbols_cfa_reg(s, 0x10), -1);
	assert_int_equal(ptd_symbols_inlined(s, 0x10, in, 4), 0);
	assert_int_equal(ptd_symbols_inlined(NULL, a, in, 4), -ptde_invalid);
	assert_int_equal(ptd_symbols_inlined(s, a, NULL, 4), -ptde_invalid);
	{
		/* `break sq`: one location per inlined copy (two, at lines 6
		 * and 7), at the copy's entry (gcc -O2: gdb takes the entry
		 * itself); sq exists only inlined, comp not at all */
		uint64_t *v = NULL;
		int n = ptd__symbols_inlined_entries(s, "sq", &v), lines = 0;

		assert_int_equal(n, 2);
		assert_true(v[0] < v[1]);
		for (int i = 0; i < n; i++) {
			struct ptd_iblock b[PTD_ICHAIN_MAX];
			int k = ptd__symbols_inline_chain(s, v[i], b, PTD_ICHAIN_MAX), found = 0;

			assert_true(v[i] >= a && v[i] < a + size);
			for (int j = 0; j < k; j++)
				if (!strcmp(b[j].name, "sq") && b[j].entry == v[i]) {
					found = 1;
					lines |= b[j].call_line == 6 ? 1 : b[j].call_line == 7 ? 2 : 0;
				}
			assert_true(found);
		}
		assert_int_equal(lines, 3);
		free(v);
		assert_int_equal(ptd__symbols_inlined_entries(s, "sumsq", &v), 1);
		free(v);
		assert_int_equal(ptd__symbols_inlined_entries(s, "comp", &v), 0);
		free(v);
		assert_int_equal(ptd__symbols_inlined_entries(s, "nosuch", &v), 0);
		free(v);
		assert_int_equal(ptd__symbols_inlined_entries(NULL, "sq", &v), -ptde_invalid);
		/* `break inl.c:3` (sq's line): each copy, by address, all in
		 * comp and on line 3 */
		n = ptd__symbols_line_addrs(s, "inl.c", 3, &v, &lines);
		assert_true(n >= 2);
		assert_int_equal(lines, 3);
		for (int i = 0; i < n; i++) {
			struct ptd_line l;

			assert_true(i == 0 || v[i - 1] < v[i]);
			assert_true(v[i] >= a && v[i] < a + size);
			assert_int_equal(ptd_symbols_line(s, v[i], &l), 0);
		}
		free(v);
		assert_int_equal(ptd__symbols_line_addrs(s, "inl.c", 999, &v, &lines), -ptde_notfound);
		assert_int_equal(ptd__symbols_line_addrs(s, "nosuch.c", 3, &v, &lines),
				 -ptde_notfound);
		assert_int_equal(ptd__symbols_line_addrs(NULL, "inl.c", 3, &v, &lines),
				 -ptde_invalid);
	}
	{
		/* comp is exported (a PLT entry of it would be dropped), sq
		 * only inlined; a file already known adds nothing, one not
		 * known yet has what it has */
		char **keys = NULL;
		int nk = ptd__symbols_module_keys(s, &keys);

		assert_int_equal(ptd__symbols_exported_function(s, "comp"), 1);
		assert_int_equal(ptd__symbols_exported_function(s, "sq"), 0);
		assert_int_equal(ptd__symbols_exported_function(NULL, "comp"), 0);
		assert_true(nk >= 1);
		assert_int_equal(ptd__symbols_added_have(s, keys, nk, "comp"), 0);
		assert_int_equal(ptd__symbols_added_have(s, NULL, 0, "comp"), 1);
		assert_int_equal(ptd__symbols_added_have(s, NULL, 0, "sq"), 1);
		assert_int_equal(ptd__symbols_added_have(s, NULL, 0, "nosuch"), 0);
		assert_int_equal(ptd__symbols_added_have(NULL, keys, nk, "comp"), 1);
		for (int i = 0; i < nk; i++)
			free(keys[i]);
		free(keys);
		assert_int_equal(ptd__symbols_module_keys(NULL, &keys), -ptde_invalid);
		assert_null(keys);
	}
	ptd_symbols_free(s);
}

static void test_bad_arguments(void **state)
{
	struct ptd_symbols *s = NULL;
	struct ptd_symbol sym;
	struct ptd_line l;
	uint64_t a;
	int ln;
	char buf[8];

	assert_int_equal(ptd_symbols_alloc_pid(NULL, getpid()), -ptde_invalid);
	assert_int_equal(ptd_symbols_alloc_pid(&s, 0), -ptde_invalid);
	assert_true(ptd_symbols_alloc_pid(&s, 0x3ffffff0) < 0); /* no such process */
	assert_null(s);
	assert_int_equal(ptd_symbols_alloc_file(NULL, "/bin/true", 0), -ptde_invalid);
	assert_int_equal(ptd_symbols_alloc_file(&s, NULL, 0), -ptde_invalid);
	assert_int_equal(ptd_symbols_alloc_file(&s, "/nonexistent/file", 0), -ptde_notfound);
	assert_null(s);
	assert_int_equal(ptd_symbols_add_file(NULL, "/bin/true", 0, 0), -ptde_invalid);
	assert_int_equal(ptd_symbols_refresh(NULL), -ptde_invalid);
	assert_int_equal(ptd_symbols_lookup(NULL, 0, &sym), -ptde_invalid);
	assert_int_equal(ptd_symbols_line(NULL, 0, &l), -ptde_invalid);
	assert_int_equal(ptd_symbols_function(NULL, "main", &a, &a), -ptde_invalid);
	assert_int_equal(ptd_symbols_file_line(NULL, "t.c", 1, &a, &ln), -ptde_invalid);
	assert_int_equal(ptd_symbols_source_line(NULL, "t.c", 1, buf, sizeof(buf)), -ptde_invalid);
	ptd_symbols_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_functions_and_breakpoints),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_symbolize),
		cmocka_unit_test(test_lines_match_readelf),
		cmocka_unit_test(test_file_line),
		cmocka_unit_test(test_source_line),
		cmocka_unit_test(test_pie_bias_and_add_file),
		cmocka_unit_test(test_live_self),
		cmocka_unit_test(test_inlined),
		cmocka_unit_test(test_cold_part),
		cmocka_unit_test(test_thunk_target),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
