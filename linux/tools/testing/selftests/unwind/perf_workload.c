// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known call chain for perf_tool.sh: main() ->
 * w_outer() -> w_middle() -> w_inner(), which reads /dev/zero with a
 * system call instruction of its own (a C library built without frame
 * pointers would hide its caller) and then sums what it read in user mode.
 *
 * Usage: perf_workload [LOOPS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __x86_64__
#error "w_inner() enters the kernel with the x86_64 syscall instruction"
#endif

#define __w_noinline	__attribute__((__noinline__, __noclone__))

#define W_READ_SIZE	(256 << 10)
#define W_SUM_SIZE	(32 << 10)

static unsigned char buf[W_READ_SIZE];

/*
 * A leaf: the array on its stack makes gcc give it a frame of its own, so
 * that the frame pointer walk finds w_middle() above it.
 */
static __w_noinline long w_inner(int fd)
{
	unsigned long sum = 0, frame[2];
	long ret = SYS_read;
	unsigned int i;

	asm volatile("" : : "r" (frame) : "memory");
	asm volatile("syscall"
		     : "+a" (ret)
		     : "D" ((long)fd), "S" (buf), "d" ((long)sizeof(buf))
		     : "rcx", "r11", "memory");
	for (i = 0; i < W_SUM_SIZE; i++)
		sum += buf[i] * i;
	asm volatile("" : : "r" (sum));
	return ret;
}

static __w_noinline long w_middle(int fd)
{
	long ret = w_inner(fd);

	return ret < 0 ? ret : ret + 1;
}

static __w_noinline long w_outer(int fd, unsigned long loops)
{
	unsigned long i;
	long ret;

	for (i = 0; i < loops; i++) {
		ret = w_middle(fd);
		if (ret != W_READ_SIZE + 1)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long loops = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	long ret;

	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	ret = w_outer(fd, loops);
	close(fd);
	return ret ? 1 : 0;
}
