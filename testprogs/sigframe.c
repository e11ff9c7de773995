/*
 * sigframe: a signal handler interrupting the program's own code.
 * deliver() sends SIGUSR1 to its own thread with an inline tgkill
 * syscall, so the signal arrives as the syscall returns, inside deliver();
 * the handler's backtrace goes through the signal trampoline ("<signal
 * handler called>") to deliver() at the instruction it resumes at.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int hits;

static void handler(int sig)
{
	hits += sig;
}

__attribute__((noinline)) void deliver(void)
{
	long pid = getpid(), tid = syscall(SYS_gettid), rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"((long)SYS_tgkill), "D"(pid), "S"(tid), "d"((long)SIGUSR1)
			 : "rcx", "r11", "memory");
	hits += (int)rc;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	deliver();
	printf("hits=%d\n", hits);
	return 0;
}
