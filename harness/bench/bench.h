/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the benchmark workloads, which use no libc: Debian's static libc
 * has no frame pointers, so its start code would end every user stack in
 * garbage of varying depth. _start clears the frame pointer and calls main,
 * so each user stack is exactly the workload's frames. Also here: raw system
 * calls, argument parsing and self-timing; each workload prints
 * "elapsed_ns N", the time of its measured loop only.
 */
#ifndef BENCH_H
#define BENCH_H

#include <asm/unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)

static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 asm("r10") = d;
	register long r8 asm("r8") = e;
	register long r9 asm("r9") = f;
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline long sys3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline void say(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	sys3(__NR_write, 2, (long)s, n);
}

static inline __attribute__((noreturn)) void die(const char *s)
{
	say(s);
	sys3(__NR_exit_group, 1, 0, 0);
	__builtin_unreachable();
}

static inline long long now_ns(void)
{
	struct { long sec, nsec; } ts;

	sys3(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)&ts, 0);
	return ts.sec * 1000000000LL + ts.nsec;
}

/* Print "elapsed_ns N\n" on stdout. */
static inline void print_elapsed(long long ns)
{
	char buf[40], *p = buf + sizeof(buf);
	static const char head[] = "elapsed_ns ";

	*--p = '\n';
	do
		*--p = '0' + ns % 10;
	while ((ns /= 10) > 0);
	p -= sizeof(head) - 1;
	for (unsigned long i = 0; i < sizeof(head) - 1; i++)
		p[i] = head[i];
	sys3(__NR_write, 1, (long)p, buf + sizeof(buf) - p);
}

/* argv[i] as a positive decimal number, or exit with the usage line. */
static inline long arg(int argc, char **argv, int i, const char *usage)
{
	const char *p = i < argc ? argv[i] : "";
	long v = 0;

	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + *p - '0';
	if (i >= argc || *p || v <= 0) {
		say("usage: ");
		say(argv[0]);
		say(" ");
		say(usage);
		say("\n");
		sys3(__NR_exit_group, 2, 0, 0);
	}
	return v;
}

int main(int argc, char **argv);

/* The entry point: the outermost frame, with a zero frame pointer. */
asm(".globl _start\n"
    "_start:\n"
    "	xor %ebp, %ebp\n"
    "	mov (%rsp), %rdi\n"		/* argc */
    "	lea 8(%rsp), %rsi\n"		/* argv */
    "	call main\n"
    "	mov %eax, %edi\n"
    "	mov $" STR(__NR_exit_group) ", %eax\n"
    "	syscall\n");

#endif
