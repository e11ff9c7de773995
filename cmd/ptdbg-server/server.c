/*
 * ptdbg-server: the gdb remote-protocol front end.  This file owns the
 * command line, the program's launch or attach, the transport (stdio, a
 * TCP or a Unix socket, one client) and the byte loop: bytes go through
 * rsp.h's reader, payloads to the stub (src/gdb/stub.h), replies back
 * framed.  While the program runs, a watcher thread reads the connection
 * so gdb's interrupt byte (0x03) stops it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include "ptdbg/gdbstub.h"
#include "ptdbg/ptdbg.h"

static struct ptd_session *volatile g_session;
/* --forward-output: the read end of the pipe that launched programs have
 * as their standard output (non-blocking), or -1 */
static int g_outfd = -1;

static void on_sigint(int sig)
{
	(void)sig;
	/* the watcher thread's interrupt arrives here on the tracer thread */
	if (g_session)
		ptd_session_interrupt(g_session);
}

static void on_fatal(int sig)
{
	ptd_target_quit_signal(sig);
}

/* SIGPIPE, SIGXFSZ: only so that the write fails (EPIPE, EFBIG). */
static void on_nothing(int sig)
{
	(void)sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptdbg-server [options] (--stdio | --listen [HOST]:PORT | --unix PATH)\n"
		"                    (--attach PID | -- PROGRAM [ARGS...] | --multi)\n\n"
		"A gdb remote-protocol stub: gdb connects with\n"
		"  target remote | ptdbg-server --stdio -- PROGRAM\n"
		"  target remote :PORT        (ptdbg-server --listen :PORT -- PROGRAM)\n\n"
		"Options:\n"
		"  --stdio            Talk to gdb over standard input and output (the\n"
		"                     program's output goes to standard error).\n"
		"  --listen HOST:PORT Accept one gdb on TCP; HOST defaults to 127.0.0.1 (another\n"
		"                     address only when given).  PORT 0 picks a free port.\n"
		"  --unix PATH        Accept one gdb on a Unix socket at PATH.\n"
		"  --attach PID       Debug the running process PID instead of launching one.\n"
		"  --method METHOD    Record from the start with METHOD: auto, pt, bts, soft,\n"
		"                     step (also what Qbtrace and --multi programs use).\n"
		"  --record           Record from the start (reverse execution: bs, bc).\n"
		"  --forward-output   Send the standard output of programs started here to gdb\n"
		"                     in O packets (gdb prints it on its console).\n"
		"  --no-pin-cpu       Do not run ptdbg and the program on one CPU.\n"
		"  --multi            Start with no program: gdb's target extended-remote\n"
		"                     starts one (run) or attaches (attach PID).\n"
		"  -h, --help         Print this message and exit.\n\n"
		"See ptdbg-server(1).\n");
}

/* ---- the connection ----------------------------------------------------------------------- */

struct conn {
	int in, out;
	int noack;
	struct ptd_rsp_buf frame; /* the last packet sent (resent on '-') */
	/* bytes the watcher read while the program ran */
	uint8_t *pend;
	size_t npend, cappend;
	int eof;
};

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int send_packet(struct conn *c, const struct ptd_rsp_buf *payload)
{
	if (payload->oom ||
	    ptd_rsp_frame(&c->frame, payload->p ? payload->p : "", payload->len, 1) < 0) {
		/* out of memory building the reply: say so in the protocol */
		if (ptd_rsp_frame(&c->frame, "E0c", 3, 0) < 0)
			return -1;
	}
	return write_all(c->out, c->frame.p, c->frame.len);
}

/* ---- the watcher: reads gdb's bytes while the program runs ---------------------------------- */

struct watcher {
	pthread_t th;
	struct conn *c;
	int stop_pipe[2];
	pthread_mutex_t lock;
	int asked; /* the interrupt byte came before the motion started */
};

static void pend_add(struct conn *c, const uint8_t *b, size_t n)
{
	if (c->npend + n > c->cappend) {
		size_t cap = c->cappend ? c->cappend : 256;
		while (cap < c->npend + n)
			cap *= 2;
		uint8_t *p = realloc(c->pend, cap);
		if (!p)
			return; /* dropped: gdb retransmits in ack mode */
		c->pend = p;
		c->cappend = cap;
	}
	memcpy(c->pend + c->npend, b, n);
	c->npend += n;
}

/*
 * Sends what the program wrote to its standard output (--forward-output)
 * as O packets: gdb accepts them only while the program runs, so this is
 * the watcher's job, and it sends what is left before the stop reply.
 * gdb acks them like any packet; the '+' comes back with gdb's other
 * bytes.  Returns -1 when the connection is gone.
 */
static int forward_output(struct conn *c)
{
	struct ptd_rsp_buf pl = {0}, fr = {0};
	uint8_t b[1024];
	int rc = 0;

	for (;;) {
		ssize_t r = read(g_outfd, b, sizeof(b));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* drained (EAGAIN) or no writer left */
		ptd_rsp_buf_reset(&pl);
		ptd_rsp_puts(&pl, "O");
		ptd_rsp_put_hex(&pl, b, (size_t)r);
		if (pl.oom || ptd_rsp_frame(&fr, pl.p, pl.len, 1) < 0 ||
		    write_all(c->out, fr.p, fr.len) < 0) {
			rc = -1;
			break;
		}
	}
	ptd_rsp_buf_free(&pl);
	ptd_rsp_buf_free(&fr);
	return rc;
}

static void *watch(void *arg)
{
	struct watcher *w = arg;
	struct conn *c = w->c;
	int asked = w->asked;

	if (asked)
		ptd_session_interrupt(g_session);
	for (;;) {
		struct pollfd pf[3] = {{c->in, POLLIN, 0}, {w->stop_pipe[0], POLLIN, 0},
				       {g_outfd, POLLIN, 0}};
		uint8_t b[512];
		ssize_t r;
		int rc;

		if (c->eof) {
			/* the client is gone: stop the program, nothing to read */
			struct pollfd only = {w->stop_pipe[0], POLLIN, 0};
			if (poll(&only, 1, 200) != 0)
				break;
			ptd_session_interrupt(g_session);
			continue;
		}
		/* Once asked, the interrupt is asked again now and then until
		 * the motion ends: a request that lands just before the
		 * motion starts is cleared by it. */
		rc = poll(pf, g_outfd >= 0 ? 3 : 2, asked ? 200 : -1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0 || pf[1].revents) {
			/* the motion ended: what the program wrote goes first */
			if (g_outfd >= 0 && !c->eof)
				forward_output(c);
			break;
		}
		if (rc == 0) {
			ptd_session_interrupt(g_session);
			continue;
		}
		if (g_outfd >= 0 && pf[2].revents) {
			if (forward_output(c) < 0)
				c->eof = 1; /* seen as gdb gone on the next turn */
			if (!pf[0].revents)
				continue;
		}
		r = read(c->in, b, sizeof(b));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* gdb went away while the program runs: stop it, so
			 * that it is killed or detached as after any end */
			c->eof = 1;
			asked = 1;
			ptd_session_interrupt(g_session);
			continue;
		}
		pthread_mutex_lock(&w->lock);
		pend_add(c, b, (size_t)r);
		pthread_mutex_unlock(&w->lock);
		if (memchr(b, 0x03, (size_t)r)) {
			asked = 1;
			ptd_session_interrupt(g_session);
		}
	}
	return NULL;
}

/* Runs the resume the stub accepted while watching the connection;
 * @interrupt: gdb's interrupt byte came with the resume packet, in the
 * same read (the watcher would never see it). */
static int resume_watched(struct conn *c, struct ptd_stub *st, struct ptd_rsp_buf *reply,
			  int interrupt)
{
	struct watcher w = {.c = c, .asked = interrupt};
	int rc, started;

	pthread_mutex_init(&w.lock, NULL);
	started = pipe2(w.stop_pipe, O_CLOEXEC) == 0 && pthread_create(&w.th, NULL, watch, &w) == 0;
	rc = ptd_stub_resume(st, reply);
	if (started) {
		if (write_all(w.stop_pipe[1], "x", 1) == 0)
			pthread_join(w.th, NULL);
		else
			pthread_detach(w.th);
	}
	if (w.stop_pipe[0] > 0) {
		close(w.stop_pipe[0]);
		close(w.stop_pipe[1]);
	}
	pthread_mutex_destroy(&w.lock);
	/* an interrupt asked for after the motion ended has nothing to stop */
	ptd_target_clear_interrupt();
	/* the interrupt byte (and only that) is not a packet: drop it */
	{
		size_t k = 0;
		for (size_t i = 0; i < c->npend; i++)
			if (c->pend[i] != 0x03)
				c->pend[k++] = c->pend[i];
		c->npend = k;
	}
	return rc;
}

/* ---- the packet loop ------------------------------------------------------------------------ */

/* Handles the bytes in @b; returns 1 when the connection is to close. */
static int handle_bytes(struct conn *c, struct ptd_rsp_reader *rd, struct ptd_stub *st,
			const uint8_t *b, size_t n, struct ptd_rsp_buf *reply)
{
	size_t off = 0, used;

	while (off < n) {
		int ev = ptd_rsp_feed(rd, b + off, n - off, &used), act;

		off += used;
		switch (ev) {
		case PTD_RSP_PACKET:
			if (!c->noack && write_all(c->out, "+", 1) < 0)
				return 1;
			act = ptd_stub_packet(st, rd->buf, rd->len, reply);
			if (act & PTD_STUB_RESUME)
				act = resume_watched(c, st, reply,
						     memchr(b + off, 0x03, n - off) != NULL) |
				      (act & ~PTD_STUB_RESUME);
			if ((act & PTD_STUB_REPLY) && send_packet(c, reply) < 0)
				return 1;
			if (act & PTD_STUB_NOACK)
				c->noack = 1;
			if (act & PTD_STUB_CLOSE)
				return 1;
			/* bytes gdb sent while the program ran come next */
			if (c->npend) {
				uint8_t *p = c->pend;
				size_t np = c->npend;
				int done;
				c->pend = NULL;
				c->npend = c->cappend = 0;
				done = handle_bytes(c, rd, st, p, np, reply);
				free(p);
				if (done)
					return 1;
			}
			if (c->eof)
				return 1;
			break;
		case PTD_RSP_NAK:
			if (c->frame.len && write_all(c->out, c->frame.p, c->frame.len) < 0)
				return 1;
			break;
		case PTD_RSP_BAD_CHECKSUM:
			if (!c->noack && write_all(c->out, "-", 1) < 0)
				return 1;
			break;
		case PTD_RSP_OVERSIZE:
		case PTD_RSP_BAD_ENCODING:
			/* a reply all the same, or gdb would wait for one */
			if (!c->noack && write_all(c->out, "+", 1) < 0)
				return 1;
			ptd_rsp_buf_reset(reply);
			ptd_rsp_puts(reply, "E01");
			if (send_packet(c, reply) < 0)
				return 1;
			break;
		case PTD_RSP_INTERRUPT:
			/* the program is stopped already */
		case PTD_RSP_ACK:
		case PTD_RSP_NONE:
			break;
		default: /* out of memory */
			return 1;
		}
	}
	return 0;
}

static void serve(struct conn *c, struct ptd_stub *st)
{
	struct ptd_rsp_reader rd;
	struct ptd_rsp_buf reply = {0};
	uint8_t b[4096];

	if (ptd_rsp_reader_init(&rd, PTD_STUB_PACKET_SIZE) < 0) {
		fprintf(stderr, "ptdbg-server: %s\n", ptd_last_error(-ptde_nomem));
		return;
	}
	for (;;) {
		ssize_t r;

		/* idle: a SIGTERM here tears down at once */
		ptd_target_safe_point(1);
		r = read(c->in, b, sizeof(b));
		ptd_target_safe_point(0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (handle_bytes(c, &rd, st, b, (size_t)r, &reply))
			break;
	}
	ptd_rsp_buf_free(&reply);
	ptd_rsp_reader_free(&rd);
}

/* ---- --forward-output ----------------------------------------------------------------------- */

/*
 * Programs launched from now on (the one on the command line, vRun's)
 * get a pipe as their standard output, read by the watcher while they
 * run; their standard error stays ours.  Attached programs keep theirs.
 */
static int setup_forward(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) < 0 || dup2(p[1], 1) < 0) {
		fprintf(stderr, "ptdbg-server: cannot set up --forward-output: %s\n", strerror(errno));
		return -1;
	}
	close(p[1]); /* fd 1 (inherited, not close-on-exec) is the write end now */
	g_outfd = p[0];
	return 0;
}

/*
 * A program gdb detached from runs on with our pipe as its standard
 * output: were the pipe's reader gone, its next write would kill it
 * (SIGPIPE).  A child of ours copies the rest to our standard error until
 * the last writer closes it.
 */
static void relay_output(struct conn *c, int lfd)
{
	pid_t r;

	close(1); /* ours: only programs' write ends keep the pipe open now */
	r = fork();
	if (r != 0)
		return; /* (a failed fork leaves the output unread: nothing better) */
	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0 && c->out != c->in)
		close(c->out);
	if (lfd >= 0)
		close(lfd);
	fcntl(g_outfd, F_SETFL, 0);
	for (;;) {
		uint8_t b[4096];
		ssize_t n = read(g_outfd, b, sizeof(b));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || write_all(2, b, (size_t)n) < 0)
			break;
	}
	_exit(0);
}

/* ---- sockets ------------------------------------------------------------------------------ */

static int listen_tcp(const char *spec)
{
	const char *colon = strrchr(spec, ':');
	char host[256];
	struct addrinfo hints = {0}, *ai = NULL, *a;
	int fd = -1, rc, one = 1;

	if (!colon || !colon[1]) {
		fprintf(stderr, "ptdbg-server: bad --listen address '%s' (expected [HOST]:PORT)\n",
			spec);
		return -1;
	}
	if ((size_t)(colon - spec) >= sizeof(host)) {
		fprintf(stderr, "ptdbg-server: bad --listen host in '%s'\n", spec);
		return -1;
	}
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = 0;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	if (!host[0])
		strcpy(host, "127.0.0.1");
	else if (strcmp(host, "127.0.0.1") && strcmp(host, "localhost") && strcmp(host, "::1"))
		fprintf(stderr,
			"ptdbg-server: warning: listening on %s: whoever reaches it "
			"controls the program\n",
			host);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(host, colon + 1, &hints, &ai);
	if (rc) {
		fprintf(stderr, "ptdbg-server: cannot listen on '%s': %s\n", spec,
			gai_strerror(rc));
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 1) == 0)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		fprintf(stderr, "ptdbg-server: cannot listen on '%s': %s\n", spec, strerror(errno));
	freeaddrinfo(ai);
	if (fd >= 0) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int port = 0;
		if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
			port = ntohs(ss.ss_family == AF_INET6
					     ? ((struct sockaddr_in6 *)&ss)->sin6_port
					     : ((struct sockaddr_in *)&ss)->sin_port);
		/* gdbserver's wording, which scripts wait for */
		fprintf(stderr, "Listening on port %d\n", port);
	}
	return fd;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "ptdbg-server: socket path too long: '%s'\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		fprintf(stderr, "ptdbg-server: cannot listen on '%s': %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(stderr, "Listening on %s\n", path);
	return fd;
}

/* Accepts one client, then closes the listener: a second client is
 * refused by the kernel (connection refused), as gdbserver does. */
static int accept_one(int lfd, const char *unix_path)
{
	int fd, one = 1;

	/* waiting for gdb is idle time: a SIGTERM here tears down at once */
	ptd_target_safe_point(1);
	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	ptd_target_safe_point(0);
	if (fd < 0)
		fprintf(stderr, "ptdbg-server: cannot accept a connection: %s\n", strerror(errno));
	close(lfd);
	if (unix_path)
		unlink(unix_path);
	if (fd >= 0) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fprintf(stderr, "ptdbg-server: gdb connected\n");
	}
	return fd;
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	enum { O_STDIO = 256, O_LISTEN, O_UNIX, O_ATTACH, O_METHOD, O_RECORD, O_NOPIN, O_MULTI,
	       O_FORWARD };
	static const struct option opts[] = {
		{"stdio", no_argument, NULL, O_STDIO},
		{"listen", required_argument, NULL, O_LISTEN},
		{"unix", required_argument, NULL, O_UNIX},
		{"attach", required_argument, NULL, O_ATTACH},
		{"method", required_argument, NULL, O_METHOD},
		{"record", no_argument, NULL, O_RECORD},
		{"no-pin-cpu", no_argument, NULL, O_NOPIN},
		{"forward-output", no_argument, NULL, O_FORWARD},
		{"multi", no_argument, NULL, O_MULTI},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *listen_spec = NULL, *unix_path = NULL;
	int use_stdio = 0, method = PTD_METHOD_AUTO, record = 0, nopin = 0, nconn = 0, opt, rc;
	int multi = 0, forward = 0;
	long pid = 0;
	struct ptd_session *s;
	struct ptd_stub *st;
	struct conn c = {.in = -1, .out = -1};
	struct sigaction sa = {0}, old;
	int lfd = -1, status = 0;

	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case O_STDIO:
			use_stdio = 1;
			nconn++;
			break;
		case O_LISTEN:
			listen_spec = optarg;
			nconn++;
			break;
		case O_UNIX:
			unix_path = optarg;
			nconn++;
			break;
		case O_ATTACH: {
			char *end;
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > 0x7fffffff) {
				fprintf(stderr, "ptdbg-server: bad process id '%s'\n", optarg);
				return 2;
			}
			break;
		}
		case O_METHOD:
			method = ptd_method_parse(optarg);
			if (method < 0) {
				fprintf(stderr, "ptdbg-server: %s\n", ptd_last_error(method));
				return 2;
			}
			break;
		case O_RECORD:
			record = 1;
			break;
		case O_NOPIN:
			nopin = 1;
			break;
		case O_MULTI:
			multi = 1;
			break;
		case O_FORWARD:
			forward = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (nconn != 1) {
		fprintf(stderr, "ptdbg-server: give exactly one of --stdio, --listen, --unix\n");
		usage(stderr);
		return 2;
	}
	if ((pid != 0 && optind < argc) || (!multi && !pid && optind >= argc)) {
		fprintf(stderr, "ptdbg-server: give either --attach PID or -- PROGRAM [ARGS...] "
				"(or --multi)\n");
		usage(stderr);
		return 2;
	}

	sigemptyset(&sa.sa_mask);
	/* A gdb gone mid-reply is an EPIPE, not our death; a file over the
	 * size limit (ulimit -f, gdb's vFile:pwrite) an EFBIG.  Handlers, not
	 * SIG_IGN: an ignored signal stays ignored across exec, and the
	 * programs started here must get the dispositions we were given
	 * (under SIG_IGN they ran with SIGPIPE ignored). */
	sa.sa_handler = on_nothing;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGPIPE, &sa, NULL);
	if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGXFSZ, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_fatal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (use_stdio) {
		/* The protocol keeps stdin/stdout on descriptors of its own;
		 * the program gets /dev/null for input and our stderr for
		 * output, so nothing it prints corrupts the packets. */
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		c.in = fcntl(0, F_DUPFD_CLOEXEC, 3);
		c.out = fcntl(1, F_DUPFD_CLOEXEC, 3);
		if (nul < 0 || c.in < 0 || c.out < 0 || dup2(nul, 0) < 0 || dup2(2, 1) < 0) {
			fprintf(stderr, "ptdbg-server: cannot set up stdio: %s\n", strerror(errno));
			return 1;
		}
		close(nul);
	} else {
		lfd = listen_spec ? listen_tcp(listen_spec) : listen_unix(unix_path);
		if (lfd < 0)
			return 1;
	}
	if (forward && setup_forward() < 0)
		return 1;

	s = ptd_session_alloc();
	if (!s) {
		fprintf(stderr, "ptdbg-server: out of memory\n");
		return 1;
	}
	g_session = s;
	ptd_session_set_method(s, (enum ptd_method)method);
	if (nopin)
		ptd_session_set_pin_cpu(s, 0);
	rc = 0;
	if (pid) {
		rc = ptd_session_attach(s, (pid_t)pid);
	} else if (optind < argc) {
		rc = ptd_session_set_program(s, argv + optind);
		if (rc == 0)
			rc = ptd_session_launch(s);
	}
	if (rc < 0) {
		fprintf(stderr, "ptdbg-server: %s\n", ptd_last_error(rc));
		ptd_session_free(s);
		return 1;
	}
	if (ptd_session_alive(s))
		fprintf(stderr, "ptdbg-server: %s process %d\n", pid ? "attached to" : "started",
			(int)ptd_session_pid(s));
	if (ptd_session_alive(s) && (record || method != PTD_METHOD_AUTO)) {
		rc = ptd_session_record_start(s, (enum ptd_method)method);
		if (rc < 0) {
			fprintf(stderr, "ptdbg-server: cannot record: %s\n", ptd_last_error(rc));
			g_session = NULL;
			ptd_session_free(s);
			return 1;
		}
	}
	st = ptd_stub_alloc(s, pid != 0);
	if (!st) {
		fprintf(stderr, "ptdbg-server: out of memory\n");
		g_session = NULL;
		ptd_session_free(s);
		return 1;
	}
	if (record || method != PTD_METHOD_AUTO)
		ptd_stub_set_record(st, method);
	if (lfd >= 0) {
		c.in = c.out = accept_one(lfd, unix_path);
		if (c.in < 0)
			status = 1;
	}
	if (c.in >= 0) {
		serve(&c, st);
		if (ptd_session_alive(s))
			fprintf(stderr, "ptdbg-server: gdb disconnected; %s process %d\n",
				ptd_stub_attached(st) ? "detaching from" : "killing",
				(int)ptd_session_pid(s));
	}
	ptd_stub_free(st);
	g_session = NULL;
	/* a launched program is killed, an attached one detached (as gdbserver
	 * does when its one client is gone) */
	ptd_session_free(s);
	if (g_outfd >= 0)
		relay_output(&c, lfd);
	ptd_rsp_buf_free(&c.frame);
	free(c.pend);
	return status;
}
