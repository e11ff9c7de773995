/*
 * gdb's host I/O (the vFile packets of the remote protocol's "Host I/O
 * Packets"): gdb opens, reads and stats files on the stub's side through
 * them.  The stub runs on the machine of the program, so gdb reads the
 * program, its libraries and /proc/PID/... files (the vdso's range in
 * task/TID/maps, `info proc`) as it does with gdbserver, instead of
 * warning that the target "does not support file transfer".
 *
 * The values on the wire are gdb's File-I/O encodings, not the host's:
 * open flags, errno numbers and the big-endian struct stat of gdb's
 * manual.  Every file gdb opens is closed when gdb closes it or when the
 * stub ends; a bounded table keeps a misbehaving client from exhausting
 * the stub's descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdb/stub_int.h"

/* gdb's File-I/O open flags */
enum {
	FIO_RDONLY = 0x0,
	FIO_WRONLY = 0x1,
	FIO_RDWR = 0x2,
	FIO_APPEND = 0x8,
	FIO_CREAT = 0x200,
	FIO_TRUNC = 0x400,
	FIO_EXCL = 0x800,
};

/* gdb's File-I/O errno numbers */
static int fio_errno(int e)
{
	switch (e) {
	case EPERM: return 1;
	case ENOENT: return 2;
	case EINTR: return 4;
	case EBADF: return 9;
	case EACCES: return 13;
	case EFAULT: return 14;
	case EBUSY: return 16;
	case EEXIST: return 17;
	case ENODEV: return 19;
	case ENOTDIR: return 20;
	case EISDIR: return 21;
	case EINVAL: return 22;
	case ENFILE: return 23;
	case EMFILE: return 24;
	case EFBIG: return 27;
	case ENOSPC: return 28;
	case ESPIPE: return 29;
	case EROFS: return 30;
	case ENAMETOOLONG: return 91;
	default: return 9999; /* EUNKNOWN */
	}
}

static int fail(struct ptd_rsp_buf *out, int e)
{
	ptd_rsp_buf_reset(out);
	ptd_rsp_printf(out, "F-1,%x", fio_errno(e));
	return PTD_STUB_REPLY;
}

/* The hex-encoded file name at *@p (up to ',' or the end) into @path, as
 * seen from the file system gdb selected with vFile:setfs. */
static int file_name(struct ptd_stub *st, const char **p, const char *end, char *path, size_t cap)
{
	const char *q = memchr(*p, ',', (size_t)(end - *p));
	char name[PATH_MAX];
	long n;

	if (!q)
		q = end;
	if ((size_t)(q - *p) / 2 >= sizeof(name))
		return -ENAMETOOLONG;
	n = ptd_rsp_unhex(*p, (size_t)(q - *p), (uint8_t *)name, sizeof(name) - 1);
	if (n <= 0 || memchr(name, 0, (size_t)n))
		return -EINVAL;
	name[n] = 0;
	*p = q;
	if (st->fs_pid > 0) {
		if ((size_t)snprintf(path, cap, "/proc/%d/root%s%s", (int)st->fs_pid,
				     name[0] == '/' ? "" : "/", name) >= cap)
			return -ENAMETOOLONG;
	} else if ((size_t)snprintf(path, cap, "%s", name) >= cap) {
		return -ENAMETOOLONG;
	}
	return 0;
}

/* The slot of gdb's descriptor @fd, or -1. */
static int slot_of(struct ptd_stub *st, uint64_t fd)
{
	for (int i = 0; i < PTD__STUB_FILES; i++)
		if (st->files[i] >= 0 && (uint64_t)st->files[i] == fd)
			return i;
	return -1;
}

/* The one argument of vFile:close and vFile:fstat, a descriptor gdb
 * opened: its slot, or -EINVAL / -EBADF. */
static int fd_only(struct ptd_stub *st, const char *p, size_t n)
{
	const char *q = p, *end = p + n;
	uint64_t fd;
	int slot;

	if (ptd__stub_parse_hex(&q, end, &fd) < 0 || q != end)
		return -EINVAL;
	slot = slot_of(st, fd);
	return slot < 0 ? -EBADF : slot;
}

static int h_setfs(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t pid;

	if (ptd__stub_parse_hex(&q, end, &pid) < 0 || q != end || pid > INT_MAX)
		return fail(out, EINVAL);
	if (pid) {
		char root[64];

		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		if (access(root, F_OK) < 0)
			return fail(out, errno);
	}
	st->fs_pid = (pid_t)pid;
	ptd_rsp_puts(out, "F0");
	return PTD_STUB_REPLY;
}

static int h_open(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	char path[PATH_MAX + 64];
	uint64_t flags, mode;
	int oflags, fd, slot, rc;

	rc = file_name(st, &q, end, path, sizeof(path));
	if (rc < 0)
		return fail(out, -rc);
	if (ptd__stub_expect(&q, end, ',') < 0 || ptd__stub_parse_hex(&q, end, &flags) < 0 ||
	    ptd__stub_expect(&q, end, ',') < 0 || ptd__stub_parse_hex(&q, end, &mode) < 0 ||
	    q != end)
		return fail(out, EINVAL);
	switch (flags & 3) {
	case FIO_RDONLY: oflags = O_RDONLY; break;
	case FIO_WRONLY: oflags = O_WRONLY; break;
	case FIO_RDWR: oflags = O_RDWR; break;
	default: return fail(out, EINVAL);
	}
	if (flags & ~(uint64_t)(3 | FIO_APPEND | FIO_CREAT | FIO_TRUNC | FIO_EXCL))
		return fail(out, EINVAL);
	if (flags & FIO_APPEND)
		oflags |= O_APPEND;
	if (flags & FIO_CREAT)
		oflags |= O_CREAT;
	if (flags & FIO_TRUNC)
		oflags |= O_TRUNC;
	if (flags & FIO_EXCL)
		oflags |= O_EXCL;
	for (slot = 0; slot < PTD__STUB_FILES && st->files[slot] >= 0; slot++)
		;
	if (slot == PTD__STUB_FILES)
		return fail(out, EMFILE);
	/* a FIFO without a writer would block the stub in open() */
	fd = open(path, oflags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, (mode_t)(mode & 0777));
	if (fd < 0)
		return fail(out, errno);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	st->files[slot] = fd;
	ptd_rsp_printf(out, "F%x", fd);
	return PTD_STUB_REPLY;
}

static int h_close(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	int slot = fd_only(st, p, n);

	if (slot < 0)
		return fail(out, -slot);
	close(st->files[slot]);
	st->files[slot] = -1;
	ptd_rsp_puts(out, "F0");
	return PTD_STUB_REPLY;
}

static int h_pread(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t fd, count, off;
	uint8_t *buf;
	ssize_t got;
	int slot;

	if (ptd__stub_parse_hex(&q, end, &fd) < 0 || ptd__stub_expect(&q, end, ',') < 0 ||
	    ptd__stub_parse_hex(&q, end, &count) < 0 || ptd__stub_expect(&q, end, ',') < 0 ||
	    ptd__stub_parse_hex(&q, end, &off) < 0 || q != end || off > INT64_MAX)
		return fail(out, EINVAL);
	slot = slot_of(st, fd);
	if (slot < 0)
		return fail(out, EBADF);
	/* gdb asks for what fits its packet; escaping may double it (the
	 * stub's PacketSize is 0x4000) */
	if (count > 0x1ff0)
		count = 0x1ff0;
	buf = malloc(count ? count : 1);
	if (!buf)
		return fail(out, ENOMEM);
	got = pread(st->files[slot], buf, count, (off_t)off);
	if (got < 0) {
		int e = errno;

		free(buf);
		return fail(out, e);
	}
	ptd_rsp_printf(out, "F%zx;", (size_t)got);
	ptd_rsp_put_binary(out, buf, (size_t)got);
	free(buf);
	return PTD_STUB_REPLY;
}

static int h_pwrite(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t fd, off;
	ssize_t put;
	long len;
	int slot;

	if (ptd__stub_parse_hex(&q, end, &fd) < 0 || ptd__stub_expect(&q, end, ',') < 0 ||
	    ptd__stub_parse_hex(&q, end, &off) < 0 || ptd__stub_expect(&q, end, ',') < 0 ||
	    off > INT64_MAX)
		return fail(out, EINVAL);
	slot = slot_of(st, fd);
	if (slot < 0)
		return fail(out, EBADF);
	len = ptd_rsp_unescape((uint8_t *)q, (size_t)(end - q));
	if (len < 0)
		return fail(out, EINVAL);
	put = pwrite(st->files[slot], q, (size_t)len, (off_t)off);
	if (put < 0)
		return fail(out, errno);
	ptd_rsp_printf(out, "F%zx", (size_t)put);
	return PTD_STUB_REPLY;
}

static void be32(uint8_t *b, uint64_t v)
{
	/* gdb's fields are 32 bits: larger values are cut, as gdbserver does */
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void be64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
}

static int h_fstat(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	uint8_t b[64];
	struct stat sb;
	int slot = fd_only(st, p, n);

	if (slot < 0)
		return fail(out, -slot);
	if (fstat(st->files[slot], &sb) < 0)
		return fail(out, errno);
	/* gdb's struct stat: dev ino mode nlink uid gid rdev (4 bytes each),
	 * size blksize blocks (8), atime mtime ctime (4), big-endian */
	be32(b + 0, sb.st_dev);
	be32(b + 4, sb.st_ino);
	be32(b + 8, sb.st_mode);
	be32(b + 12, sb.st_nlink);
	be32(b + 16, sb.st_uid);
	be32(b + 20, sb.st_gid);
	be32(b + 24, sb.st_rdev);
	be64(b + 28, (uint64_t)sb.st_size);
	be64(b + 36, (uint64_t)sb.st_blksize);
	be64(b + 44, (uint64_t)sb.st_blocks);
	be32(b + 52, (uint64_t)sb.st_atime);
	be32(b + 56, (uint64_t)sb.st_mtime);
	be32(b + 60, (uint64_t)sb.st_ctime);
	ptd_rsp_printf(out, "F%zx;", sizeof(b));
	ptd_rsp_put_binary(out, b, sizeof(b));
	return PTD_STUB_REPLY;
}

static int h_unlink(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	char path[PATH_MAX + 64];
	int rc = file_name(st, &q, end, path, sizeof(path));

	if (rc < 0 || q != end)
		return fail(out, rc < 0 ? -rc : EINVAL);
	if (unlink(path) < 0)
		return fail(out, errno);
	ptd_rsp_puts(out, "F0");
	return PTD_STUB_REPLY;
}

static int h_readlink(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	char path[PATH_MAX + 64], target[PATH_MAX];
	ssize_t got;
	int rc = file_name(st, &q, end, path, sizeof(path));

	if (rc < 0 || q != end)
		return fail(out, rc < 0 ? -rc : EINVAL);
	got = readlink(path, target, sizeof(target));
	if (got < 0)
		return fail(out, errno);
	ptd_rsp_printf(out, "F%zx;", (size_t)got);
	ptd_rsp_put_binary(out, target, (size_t)got);
	return PTD_STUB_REPLY;
}

void ptd__stub_files_init(struct ptd_stub *st)
{
	for (int i = 0; i < PTD__STUB_FILES; i++)
		st->files[i] = -1;
	st->fs_pid = 0;
}

void ptd__stub_files_close(struct ptd_stub *st)
{
	for (int i = 0; i < PTD__STUB_FILES; i++)
		if (st->files[i] >= 0) {
			close(st->files[i]);
			st->files[i] = -1;
		}
}

const struct ptd__stub_packet ptd__stub_file_packets[] = {
	{"vFile:setfs:", PTD__STUB_PREFIX, h_setfs},
	{"vFile:open:", PTD__STUB_PREFIX, h_open},
	{"vFile:close:", PTD__STUB_PREFIX, h_close},
	{"vFile:pread:", PTD__STUB_PREFIX, h_pread},
	{"vFile:pwrite:", PTD__STUB_PREFIX, h_pwrite},
	{"vFile:fstat:", PTD__STUB_PREFIX, h_fstat},
	{"vFile:unlink:", PTD__STUB_PREFIX, h_unlink},
	{"vFile:readlink:", PTD__STUB_PREFIX, h_readlink},
	{NULL, 0, NULL},
};
