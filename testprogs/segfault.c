/*
 * segfault: a small settings parser with a real-looking bug.  Settings
 * are a linked list; lookup() walks it without checking for the end, so
 * an unknown key ("colour") walks off the list and dereferences NULL.
 * The crash is four calls deep: main -> parse -> process -> lookup.
 * This is the program `make demo` (ptdbg-report) runs on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct setting {
	const char *name;
	int value;
	struct setting *next;
};

static struct setting depth = { "depth", 8, NULL };
static struct setting height = { "height", 25, &depth };
static struct setting width = { "width", 80, &height };
static struct setting *settings = &width;

static struct setting *lookup(const char *name)
{
	struct setting *s = settings;

	/* Bug: no check for the end of the list. */
	while (strcmp(s->name, name) != 0)
		s = s->next;
	return s;
}

static int process(char *line)
{
	char *eq = strchr(line, '=');
	struct setting *s;

	if (!eq)
		return -1;
	*eq = '\0';
	s = lookup(line);
	s->value = atoi(eq + 1);
	return 0;
}

static int parse(char *text)
{
	int n = 0;
	char *line = text;

	while (line && *line) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (process(line) == 0)
			n++;
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

int main(void)
{
	char text[] = "width=132\nheight=43\ncolour=7\n";
	int n = parse(text);

	printf("%d settings: %dx%dx%d\n", n, width.value, height.value, depth.value);
	return 0;
}
