/*
 * staticprog: a statically linked program (LIBS_staticprog is -static):
 * no PLT into a shared libc, no dynamic loader.  libc's string functions
 * are still chosen at startup by the CPU (IRELATIVE relocations resolved
 * by the static startup code), so calls to strlen, memcpy and strchr go
 * through the little PLT of a static binary (.iplt) whose entries jump
 * through .got to the chosen variant.  Also qsort calling back into the
 * program.
 * Exercises stepping through ifunc stubs without a dynamic symbol table
 * to name them, and callbacks from libc code linked into the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *words[] = { "pear", "apple", "fig", "banana", "cherry", "date", "kiwi" };

static int by_len(const void *a, const void *b)
{
	size_t la = strlen(*(const char *const *)a), lb = strlen(*(const char *const *)b);

	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

__attribute__((noinline)) static size_t join(char *out, size_t size, const char **w, int n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		size_t l = strlen(w[i]);

		if (len + l + 2 > size)
			break;
		memcpy(out + len, w[i], l);
		len += l;
		out[len++] = ',';
	}
	out[len] = 0;
	return len;
}

int main(void)
{
	char buf[128];
	size_t len;
	const char *comma;

	qsort(words, sizeof words / sizeof words[0], sizeof words[0], by_len);
	len = join(buf, sizeof buf, words, sizeof words / sizeof words[0]);
	comma = strchr(buf, ',');
	printf("%s (%zu, first %d)\n", buf, len, (int)(comma - buf));
	return 0;
}
