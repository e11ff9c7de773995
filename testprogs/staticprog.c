/*
 * staticprog: a statically linked program (LIBS_staticprog is -static):
 * no PLT into a shared libc, no dynamic loader.  libc's string functions
 * are still chosen at startup by the CPU (IRELATIVE relocations resolved
 * by the static startup code), so calls to strlen, memcpy and strchr go
 * through the little PLT of a static binary (.iplt) whose entries jump
 * through .got to the chosen variant; libc itself has no line info.
 * Also qsort calling back into the program (the comparison calls nothing
 * of libc's).
 * Exercises stepping through ifunc stubs without a dynamic symbol table
 * to name them, and out of callbacks into libc code without lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct word {
	const char *s;
	size_t len;
};

static struct word words[] = { { "pear", 0 }, { "apple", 0 }, { "fig", 0 }, { "banana", 0 },
			       { "cherry", 0 }, { "date", 0 }, { "kiwi", 0 } };
#define NWORDS (sizeof words / sizeof words[0])

static int by_len(const void *a, const void *b)
{
	const struct word *x = a, *y = b;
	const char *p = x->s, *q = y->s;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	while (*p && *p == *q) {
		p++;
		q++;
	}
	return *p - *q;
}

__attribute__((noinline)) static size_t join(char *out, size_t size, const struct word *w, int n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		size_t l = w[i].len;

		if (len + l + 2 > size)
			break;
		memcpy(out + len, w[i].s, l);
		len += l;
		out[len++] = ',';
	}
	out[len] = 0;
	return len;
}

int main(void)
{
	char buf[128];
	size_t i, len;
	const char *comma;

	for (i = 0; i < NWORDS; i++)
		words[i].len = strlen(words[i].s);
	qsort(words, NWORDS, sizeof words[0], by_len);
	len = join(buf, sizeof buf, words, NWORDS);
	comma = strchr(buf, ',');
	printf("%s (%zu, first %d)\n", buf, len, (int)(comma - buf));
	return 0;
}
