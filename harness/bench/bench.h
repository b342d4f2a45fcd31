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

#if defined(__x86_64__)
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
#elif defined(__aarch64__)
static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;
	register long x3 asm("x3") = d;
	register long x4 asm("x4") = e;
	register long x5 asm("x5") = f;

	asm volatile("svc #0"
		     : "+r"(x0)
		     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
		     : "memory");
	return x0;
}

static inline long sys3(long nr, long a, long b, long c)
{
	return sys6(nr, a, b, c, 0, 0, 0);
}
#else
#error "the benchmark workloads know x86_64 and arm64 system calls only"
#endif

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
#if defined(__x86_64__)
asm(".globl _start\n"
    "_start:\n"
    "	xor %ebp, %ebp\n"
    "	mov (%rsp), %rdi\n"		/* argc */
    "	lea 8(%rsp), %rsi\n"		/* argv */
    "	call main\n"
    "	mov %eax, %edi\n"
    "	mov $" STR(__NR_exit_group) ", %eax\n"
    "	syscall\n");
#else
asm(".globl _start\n"
    "_start:\n"
    "	mov x29, #0\n"
    "	mov x30, #0\n"
    "	ldr x0, [sp]\n"			/* argc */
    "	add x1, sp, #8\n"			/* argv */
    "	bl main\n"
    "	mov x8, #" STR(__NR_exit_group) "\n"
    "	svc #0\n");
#endif

#endif
