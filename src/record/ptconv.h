/*
 * PT from an exact recording: walks the items of a block history (what the
 * step recorder wrote) and reports each control transfer to a PT
 * synthesizer, which writes the packets hardware would have written.  The
 * step recorder and the synthesizer stay independent of each other; this
 * is the only place that knows both.
 */
#ifndef PTD_RECORD_PTCONV_H
#define PTD_RECORD_PTCONV_H

#include <stdint.h>

#include "history/history.h"
#include "record/ptsynth.h"

/*
 * Feeds every item of @h to @s, in order, then ends tracing at @tail_ip
 * (the thread's pc; 0 when the history has no tail).  Code bytes for
 * telling direct from indirect branches come from @read.  Tracing is
 * (re)started with begin() at the first block when @s is disabled, so a
 * synthesizer can be fed one recording stretch after another.  Returns 0
 * or a negative ptd_error (-ptde_bad_insn when a block's last
 * instruction cannot be read or decoded).
 */
int ptd_ptconv_history(struct ptd_ptsynth *s, const struct ptd_history *h, uint64_t tail_ip,
		       ptd_read_fn read, void *ctx);
/*
 * The same for a recording that goes on: the last block's successor is
 * @next_ip (where execution continues) and tracing stays enabled, so a
 * later call can feed the following blocks.  Used before the address
 * space changes, while the recorded code is still mapped.
 */
int ptd_ptconv_partial(struct ptd_ptsynth *s, const struct ptd_history *h, uint64_t next_ip,
		       ptd_read_fn read, void *ctx);
/*
 * The same for a thread that ends inside the syscall its last block ends
 * with (exit, exit_group, or killed while blocked in one): the syscall
 * ran, into the kernel, and user-only tracing stays disabled there
 * (TIP.PGD without an IP), as the hardware traces it.  A last block that
 * does not end in a far transfer ends as with ptd_ptconv_history at no
 * tail.
 */
int ptd_ptconv_exit(struct ptd_ptsynth *s, const struct ptd_history *h, ptd_read_fn read,
		    void *ctx);

#endif
