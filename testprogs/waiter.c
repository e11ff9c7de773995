/*
 * waiter: a program that keeps running after a debugger detaches, for
 * the detach test.  It calls step() a few times, then hands its pid to
 * the test over the fifo DIR/ctl, blocks reading DIR/go, and afterwards
 * calls step() again, prints its checksum and writes it to DIR/ctl.  If a
 * breakpoint (int3) were left in step() or main() after the detach, the
 * second round would die of SIGTRAP instead of answering.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned sum;

unsigned step(unsigned x)
{
	sum = sum * 31 + x;
	return sum;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	char path[4096], buf[64];
	int ctl, go;

	for (unsigned i = 0; i < 5; i++)
		step(i);
	snprintf(path, sizeof(path), "%s/ctl", dir);
	ctl = open(path, O_WRONLY);
	if (ctl < 0)
		return 2;
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(ctl, buf, strlen(buf)) < 0)
		return 2;
	snprintf(path, sizeof(path), "%s/go", dir);
	go = open(path, O_RDONLY);
	if (go < 0 || read(go, buf, sizeof(buf)) <= 0)
		return 3;
	for (unsigned i = 5; i < 10; i++)
		step(i);
	/* stdout first, so that the test has all output once it has the
	 * checksum line. */
	printf("waiter done %u\n", sum);
	fflush(stdout);
	snprintf(buf, sizeof(buf), "sum %u\n", sum);
	if (write(ctl, buf, strlen(buf)) < 0)
		return 2;
	return 0;
}
