// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark workload, compute: recurse DEPTH functions deep, then do WORK
 * rounds of arithmetic in user space; LOOPS times. One getppid(2) per leaf
 * visit is the only system call. Nearly every sample interrupts user space,
 * so each sample is its own kernel entry and carries a long user stack.
 *
 * Usage: compute LOOPS DEPTH WORK
 */
#include "bench.h"

#define USAGE "LOOPS DEPTH WORK"

volatile unsigned long result;	/* keeps the arithmetic from being optimized out */

static __attribute__((noinline)) unsigned long leaf(unsigned long x, long work)
{
	volatile char keep[8] = { 0 };

	for (long i = 0; i < work; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		x ^= x >> 29;
	}
	x += sys3(__NR_getppid, 0, 0, 0);
	(void)keep[0];
	return x;
}

static __attribute__((noinline)) unsigned long recurse(long depth, unsigned long x,
							long work)
{
	unsigned long r;

	if (depth <= 1)
		return leaf(x, work);
	r = recurse(depth - 1, x + depth, work);
	asm volatile("" : "+r"(r) :: "memory");	/* no tail call */
	return r ^ depth;
}

int main(int argc, char **argv)
{
	long loops = arg(argc, argv, 1, USAGE);
	long depth = arg(argc, argv, 2, USAGE);
	long work = arg(argc, argv, 3, USAGE);
	unsigned long x = 1;
	long long t0 = now_ns();

	for (long i = 0; i < loops; i++)
		x = recurse(depth, x, work);
	print_elapsed(now_ns() - t0);
	result = x;
	return 0;
}
