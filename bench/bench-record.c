/*
 * bench-record: records PROGRAM from main until it calls _exit with the
 * given method and trace format, and prints one line of figures:
 *   insns=N seconds=S insn_per_s=R bytes=B bytes_per_insn=X stops=K
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptdbg/ptdbg.h"
#include "session/session.h"

int main(int argc, char **argv)
{
	struct ptd_session *s;
	struct ptd_event ev;
	struct ptd_record_info ri;
	struct timespec a, b;
	int rc, m;

	if (argc < 4) {
		fprintf(stderr, "usage: bench-record METHOD FORMAT PROGRAM [ARGS...]\n");
		return 2;
	}
	m = ptd_method_parse(argv[1]);
	if (m < 0) {
		fprintf(stderr, "bench-record: %s\n", ptd_last_error(m));
		return 2;
	}
	s = ptd_session_alloc();
	if (getenv("PTDBG_NO_PIN"))
		ptd_session_set_pin_cpu(s, 0);
	ptd_session_set_method(s, (enum ptd_method)m);
	if (ptd_session_set_trace_format(s, argv[2]) < 0 || ptd_session_set_program(s, argv + 3) < 0 ||
	    ptd_session_break(s, "main", 1) < 0 || ptd_session_run(s, 0, &ev) < 0 ||
	    ev.kind != PTD_EVENT_BREAKPOINT || ptd_session_break(s, "_exit", 0) < 0) {
		fprintf(stderr, "bench-record: cannot start: %s\n", ptd_last_error(-ptde_internal));
		return 1;
	}
	rc = ptd_session_record_start(s, PTD_METHOD_AUTO);
	if (rc < 0) {
		fprintf(stderr, "bench-record: %s\n", ptd_last_error(rc));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (rc < 0 || ev.kind != PTD_EVENT_BREAKPOINT) {
		fprintf(stderr, "bench-record: did not reach _exit\n");
		return 1;
	}
	ptd_session_record_info(s, &ri);
	double dt = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("insns=%llu seconds=%.3f insn_per_s=%.0f bytes=%zu bytes_per_insn=%.3f stops=%llu\n",
	       (unsigned long long)ri.ninsn, dt, (double)ri.ninsn / dt, ri.bytes,
	       (double)ri.bytes / (double)ri.ninsn, (unsigned long long)ri.stops);
	ptd_session_free(s);
	return 0;
}
