/*
 * Memory of a program that is not running, read from its ELF file, so that
 * `disassemble`, `x/i` and the like work before `run` as they do in gdb
 * (which reads the executable's sections).  Bytes of PT_LOAD segments
 * are returned, zeros beyond the file's part (.bss), at the addresses the
 * file gives (the addresses the symbols use before the program runs).
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

long shell_read_file_mem(const char *path, uint64_t addr, void *buf, size_t n)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	long got = -1;
	int fd, i;

	if (!path || !n)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		uint64_t avail;
		ssize_t r;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_memsz)
			continue;
		/* past the file's bytes (.bss): zeros, as the program starts
		 * with them and gdb prints them */
		if (addr - ph.p_vaddr >= ph.p_filesz) {
			avail = ph.p_memsz - (addr - ph.p_vaddr);
			if (n > avail)
				n = (size_t)avail;
			memset(buf, 0, n);
			got = (long)n;
			break;
		}
		avail = ph.p_filesz - (addr - ph.p_vaddr);
		if (n > avail)
			n = (size_t)avail;
		r = pread(fd, buf, n, (off_t)(ph.p_offset + (addr - ph.p_vaddr)));
		got = r > 0 ? (long)r : -1;
		break;
	}
out:
	close(fd);
	return got;
}
