/*
 * dlloop: dlopens build/libplugin.so (next to this executable), calls
 * plugin_compute through dlsym and dlcloses it, argv[1] times (default
 * 20), so the library's code is mapped and unmapped again and again
 * (usually at the same address).  Prints the sum of the results.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;
	long sum = 0;

	if (len < 0)
		return 2;
	path[len] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libplugin.so");
	for (int i = 0; i < n; i++) {
		void *h = dlopen(path, RTLD_NOW);
		int (*compute)(int);
		int *scale;

		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		compute = (int (*)(int))dlsym(h, "plugin_compute");
		scale = dlsym(h, "plugin_scale");
		if (!compute || !scale)
			return 1;
		*scale = i;
		sum += compute(4 + i % 3);
		if (dlclose(h) != 0)
			return 1;
	}
	printf("dlloop n=%d sum=%ld\n", n, sum);
	return 0;
}
