// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark workload, syscall-heavy: five functions deep, read(2) BYTES from
 * /dev/zero at a time, LOOPS times. Each read stays in the kernel for many
 * sampling periods, so an in-sample user walk repeats the same user stack many
 * times per kernel entry while a deferred walk runs once per entry.
 *
 * Usage: syscall LOOPS BYTES
 */
#include "bench.h"

#define USAGE "LOOPS BYTES"

static char *buf;
static int zero;

/* A stack local keeps the frame pointer in leaf-like functions (gcc 12). */
static __attribute__((noinline)) long fill(long bytes)
{
	volatile char keep[8] = { 0 };
	long n = sys3(__NR_read, zero, (long)buf, bytes);

	(void)keep[0];
	return n;
}

static __attribute__((noinline)) long copy_chunk(long bytes)
{
	long n = fill(bytes);

	asm volatile("" : "+r"(n) :: "memory");
	return n;
}

static __attribute__((noinline)) long load_file(long bytes)
{
	long n = copy_chunk(bytes);

	asm volatile("" : "+r"(n) :: "memory");
	return n;
}

static __attribute__((noinline)) void read_all(long loops, long bytes)
{
	for (long i = 0; i < loops; i++)
		if (load_file(bytes) != bytes)
			die("syscall: short read from /dev/zero\n");
}

int main(int argc, char **argv)
{
	long loops = arg(argc, argv, 1, USAGE);
	long bytes = arg(argc, argv, 2, USAGE);
	long long t0;

	zero = sys6(__NR_openat, -100 /* AT_FDCWD */, (long)"/dev/zero", 0 /* O_RDONLY */, 0, 0, 0);
	/* PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE */
	buf = (char *)sys6(__NR_mmap, 0, bytes, 3, 0x8022, -1, 0);
	if (zero < 0 || (unsigned long)buf > -4096UL)
		die("syscall: cannot open /dev/zero or map the buffer\n");
	t0 = now_ns();
	read_all(loops, bytes);
	print_elapsed(now_ns() - t0);
	return 0;
}
