/*
 * dlopen: loads build/libplugin.so (found next to this executable, or
 * argv[1]) with dlopen, looks up plugin_compute with dlsym and calls it
 * through the pointer, then dlcloses it.  Exercises code that is mapped
 * during the run.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	void *h;
	int (*compute)(int);
	int *scale;
	int r;

	if (argc > 1) {
		snprintf(path, sizeof(path), "%s", argv[1]);
	} else {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
		char *slash;

		if (n < 0)
			return 2;
		path[n] = '\0';
		slash = strrchr(path, '/');
		strcpy(slash ? slash + 1 : path, "libplugin.so");
	}
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	compute = (int (*)(int))dlsym(h, "plugin_compute");
	scale = dlsym(h, "plugin_scale");
	if (!compute || !scale)
		return 1;
	*scale = 3;
	r = compute(6);
	printf("plugin=%d\n", r);
	dlclose(h);
	return 0;
}
