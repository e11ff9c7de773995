/*
 * plugin: the shared library dlopen.c loads at run time (built as
 * build/libplugin.so).  Its code appears in the address space only
 * after dlopen, so it exercises mapping changes during a recording.
 */
int plugin_scale;

int plugin_compute(int x)
{
	int r = 0;

	for (int i = 0; i < x; i++)
		r += i * plugin_scale;
	return r + 1;
}
