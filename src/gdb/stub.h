/* The gdb stub's API is public: include/ptdbg/gdbstub.h. */
#ifndef PTD_GDB_STUB_H
#define PTD_GDB_STUB_H

#include "ptdbg/gdbstub.h"

#endif
