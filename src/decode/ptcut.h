/*
 * Where a thread's Intel PT ends in its exit syscall: the recorders end
 * the history of a thread stopped in an exit before that syscall (it
 * never returns), while its PT shows the syscall executed (the TIP.PGD
 * of the kernel entry).  A saved bundle drops that packet so that its
 * loaded history is the live one (see ptd__pt_exit_cut).
 */
#ifndef PTD_DECODE_PTCUT_H
#define PTD_DECODE_PTCUT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The offset of the TIP.PGD that ends @pt (@n bytes) when it is the
 * synchronous disable of a far branch (the IP suppressed, no FUP before
 * it) with only padding after it, after the last PSB: the trace without
 * it stops before that branch, which is then cut at the tail pc.  Returns
 * the offset, or @n when the trace does not end so.
 */
size_t ptd__pt_exit_cut(const uint8_t *pt, size_t n);

#endif
