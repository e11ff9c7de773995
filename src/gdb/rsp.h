/* The remote protocol framing is public: include/ptdbg/gdbstub.h. */
#ifndef PTD_GDB_RSP_H
#define PTD_GDB_RSP_H

#include "ptdbg/gdbstub.h"

#endif
