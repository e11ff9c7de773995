/* The library's version, from the public header's macros. */
#include "ptdbg/ptdbg.h"

#define PTD_STR_(x) #x
#define PTD_STR(x) PTD_STR_(x)

const char *ptd_version(void)
{
	return PTD_STR(PTD_VERSION_MAJOR) "." PTD_STR(PTD_VERSION_MINOR);
}
