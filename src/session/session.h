/*
 * One debugging session: a target process, its threads' recorders and
 * histories, symbols, breakpoints, and the replay position.  Front ends
 * (cmd/ptdbg, later the server and reports) drive everything through
 * this interface and format the results; stepping logic lives in
 * src/replay and here, never in a front end.
 */
#ifndef PTD_SESSION_H
#define PTD_SESSION_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "history/history.h"
#include "replay/replay.h"
#include "symbols/symbols.h"

struct ptd_session;
struct ptd_target;

/*
 * The session API is public: include/ptdbg/ptdbg.h declares every
 * ptd_session_* function and value type front ends use.  What follows is
 * for the library and its tests only.
 */

/* The ptrace target of the program (NULL when none): for src/ and tests;
 * front ends use the session's own functions. */
struct ptd_target *ptd_session_target(struct ptd_session *s);

#endif
