/*
 * Instruction classification and AT&T disassembly (Zydis), in 64-bit mode
 * and, through the _mode variants, 32-bit and 16-bit mode.
 *
 * ptd_disasm_decode() is the hot path of every recorder and of history
 * enumeration: it only classifies (length, class, direct target, flags).
 * ptd_disasm_format() produces gdb-style AT&T text for listings.
 */
#ifndef PTD_DISASM_H
#define PTD_DISASM_H

#include "ptdbg/ptdbg.h"

/* The types and functions of this module are public: include/ptdbg/ptdbg.h. */

#endif
