/*
 * The simulated perf kernel (see perf.h).  Work in progress on branch h2.
 */
#include "record/perf.h"

#include <string.h>

#include "util/error.h"

struct ptd_perf_kernel *ptd_perf_kernel_sim(const char *what)
{
	ptd__err(-ptde_unsupported, "cannot simulate a PMU of kind '%s': not built yet",
		 what ? what : "(null)");
	return NULL;
}

void ptd_perf_sim_fail(struct ptd_perf_kernel *k, const char *op, int err)
{
}

void ptd_perf_sim_set_paranoid(struct ptd_perf_kernel *k, int level)
{
}

void ptd_perf_sim_stats(const struct ptd_perf_kernel *k, struct ptd_perf_sim_stats *st)
{
	if (st)
		memset(st, 0, sizeof(*st));
}
