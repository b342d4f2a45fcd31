// SPDX-License-Identifier: GPL-2.0
/*
 * Demo for `make run`: a program five functions deep asks the test consumer
 * (lib/test_unwind_deferred.c) for deferred unwinds of itself from task, IRQ
 * and NMI context in one system call, then once more in a second one, and
 * prints what the callbacks received. The host symbolizes the addresses.
 *
 * The write(2) is a raw syscall instruction inside this program so that the
 * user stack is all frame-pointer code (Debian's static libc has none).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DIR "/sys/kernel/debug/unwind_deferred_test"

static int ctl = -1;
static char result[4096];

static long raw_write(int fd, const void *buf, unsigned long len)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(SYS_write), "D"(fd), "S"(buf), "d"(len)
		     : "rcx", "r11", "memory");
	return ret;
}

static void command(const char *cmd)
{
	long n = raw_write(ctl, cmd, strlen(cmd));
	ssize_t got;

	if (n < 0) {
		fprintf(stderr, "demo: '%s' failed: %s\n", cmd, strerror(-n));
		exit(1);
	}
	got = pread(ctl, result, sizeof(result) - 1, 0);
	result[got > 0 ? got : 0] = '\0';
	printf("  > %s\n", cmd);
	for (char *l = strtok(result, "\n"); l; l = strtok(NULL, "\n"))
		printf("    %s\n", l);
}

/* The call chain; a stack local keeps each frame even when it is a leaf. */
static __attribute__((noinline)) void sample_here(const char *cmd)
{
	volatile char keep[8] = { 0 };

	command(cmd);
	(void)keep[0];
}

static __attribute__((noinline)) void render_frame(const char *cmd)
{
	sample_here(cmd);
	asm volatile("" ::: "memory");
}

static __attribute__((noinline)) void update_scene(const char *cmd)
{
	render_frame(cmd);
	asm volatile("" ::: "memory");
}

static __attribute__((noinline)) void main_loop(const char *cmd)
{
	update_scene(cmd);
	asm volatile("" ::: "memory");
}

int main(void)
{
	char line[4096];
	FILE *rec;

	ctl = open(DIR "/control", O_RDWR);
	if (ctl < 0) {
		perror("demo: " DIR "/control");
		return 1;
	}
	printf("Registering two tracers (think: perf and ftrace):\n");
	command("reset");
	command("register 2");

	printf("\nSyscall 1: tracer 0 asks from task context, tracer 1 from a hard IRQ,\n"
	       "tracer 0 again from an NMI. One cookie; the NMI request returns 1\n"
	       "(already queued):\n");
	main_loop("request task:0 irq:1 nmi:0");

	printf("\nSyscall 2: tracer 0 asks again, migrating to the other CPU after;\n"
	       "a new entry context, so a new cookie:\n");
	main_loop("request task:0 migrate");

	printf("\nCallbacks received on the way back to user space, one per tracer\n"
	       "and entry context, all from one walk per entry context:\n");
	rec = fopen(DIR "/records", "r");
	while (rec && fgets(line, sizeof(line), rec))
		if (line[0] != '#')
			printf("  %s", line);
	printf("\nCounters:\n");
	rec = fopen(DIR "/status", "r");
	while (rec && fgets(line, sizeof(line), rec))
		printf("  %s", line);
	return 0;
}
