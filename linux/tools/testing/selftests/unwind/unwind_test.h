/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the deferred unwinding selftests: the debugfs interface
 * of the test module, and a known call chain that enters the kernel through
 * a system call instruction of its own.
 */
#ifndef UNWIND_TEST_H
#define UNWIND_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"

#define UDT_DIR		"/sys/kernel/debug/unwind_deferred_test"
#define UDT_CONTROL	UDT_DIR "/control"
#define UDT_RECORDS	UDT_DIR "/records"
#define UDT_STATUS	UDT_DIR "/status"

#define UDT_RESULT_MAX	4096
#define UDT_MAX_IPS	128
#define UDT_MAX_REQS	64

/* One line of the records file. */
struct udt_record {
	int pid;
	unsigned int tracer;
	unsigned long long cookie;
	char ctx[32];
	unsigned int nr;	/* trace length as the callback saw it */
	unsigned int nr_ips;	/* ips that follow (at most UDT_MAX_IPS) */
	unsigned long long ips[UDT_MAX_IPS];
};

/* One "req <ctx> <id> <ret> 0x<cookie>" line of a command's result. */
struct udt_req {
	char ctx[8];
	unsigned int tracer;
	int ret;
	unsigned long long cookie;
};

static inline pid_t udt_gettid(void)
{
	return syscall(SYS_gettid);
}

static inline int udt_open(void)
{
	return open(UDT_CONTROL, O_RDWR | O_CLOEXEC);
}

/* Read what the last command on @fd printed; returns its length or -1. */
static inline int udt_result(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * Write a command with write(2); returns 0 or -errno. When @res is not NULL
 * it receives the command's result lines.
 */
static inline int udt_cmd(int fd, char *res, const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (write(fd, cmd, len) != len)
		return -errno;
	if (res && udt_result(fd, res, UDT_RESULT_MAX) < 0)
		return -errno;
	return 0;
}

/* Register one tracer and return its id, or -1. */
static inline int udt_register(int fd)
{
	char res[UDT_RESULT_MAX];
	unsigned int id;

	if (udt_cmd(fd, res, "register") || sscanf(res, "register %u", &id) != 1)
		return -1;
	return id;
}

/* Parse the "req" lines of a result; returns how many were found. */
static inline int udt_parse_reqs(const char *res, struct udt_req *reqs, int max)
{
	const char *line = res;
	int n = 0;

	while (line && *line && n < max) {
		if (sscanf(line, "req %7s %u %d %llx", reqs[n].ctx,
			   &reqs[n].tracer, &reqs[n].ret, &reqs[n].cookie) == 4)
			n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}

/* Read a whole debugfs file into a malloc()ed string, NULL on error. */
static inline char *udt_slurp(const char *path)
{
	size_t size = 1 << 16, len = 0;
	char *buf = malloc(size);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		if (len + 1 >= size) {
			char *bigger = realloc(buf, size * 2);

			if (!bigger)
				goto fail;
			buf = bigger;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0)
			goto fail;
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* The whole line that starts with "@name " in the status file, into @out. */
static inline int udt_status_line(const char *name, char *out, size_t size)
{
	char *buf = udt_slurp(UDT_STATUS), *line, *end;
	size_t len = strlen(name);
	int ret = -1;

	for (line = buf; line && *line; line = end + 1) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (!strncmp(line, name, len) && line[len] == ' ') {
			snprintf(out, size, "%s", line);
			ret = 0;
			break;
		}
		if (!end)
			break;
	}
	free(buf);
	return ret;
}

/* Value of one "<name> <value>" line of the status file, or -1000. */
static inline long long udt_status(const char *name)
{
	char line[256];

	if (udt_status_line(name, line, sizeof(line)))
		return -1000;
	return strtoll(line + strlen(name) + 1, NULL, 0);
}

static inline int udt_parse_record(const char *line, struct udt_record *r)
{
	const char *p;
	char *end;
	int off;

	memset(r, 0, sizeof(*r));
	if (sscanf(line, "%d %u %llx %31s %u%n", &r->pid, &r->tracer, &r->cookie,
		   r->ctx, &r->nr, &off) != 5)
		return -1;
	p = line + off;
	while (*p == ' ' && r->nr_ips < UDT_MAX_IPS) {
		r->ips[r->nr_ips] = strtoull(p, &end, 16);
		if (end == p)
			break;
		r->nr_ips++;
		p = end;
	}
	return 0;
}

/*
 * Collect the records of thread @pid (any when 0) and tracer @tracer (any
 * when negative) into @out; returns how many matched, or -1.
 */
static inline int udt_records(int pid, int tracer, struct udt_record *out, int max)
{
	char *buf = udt_slurp(UDT_RECORDS), *line, *end;
	struct udt_record r;
	int n = 0;

	if (!buf)
		return -1;
	for (line = buf; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		*end = '\0';
		if (*line == '#' || udt_parse_record(line, &r))
			continue;
		if ((pid && r.pid != pid) || (tracer >= 0 && r.tracer != (unsigned int)tracer))
			continue;
		if (n < max)
			out[n] = r;
		n++;
	}
	free(buf);
	return n;
}

/*
 * The functions of the known call chain live in their own section, so that
 * each one ends where the next one in that section starts.
 */
extern char __start_udt_chain_text[], __stop_udt_chain_text[];

#define __udt_chain \
	__attribute__((__noinline__, __noclone__, __section__("udt_chain_text")))
#define __udt_noinline	__attribute__((__noinline__))

static inline unsigned long udt_fn_end(unsigned long start);

/* Is @ip inside the function at @fn (a return address lies past its start)? */
static inline int udt_ip_in(unsigned long long ip, void *fn)
{
	unsigned long start = (unsigned long)fn;

	return ip > start && ip < udt_fn_end(start);
}

/* Sleep @ms milliseconds. */
static inline void udt_msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait up to 10 s until at least @n writers block in a "wait" step. */
static inline int udt_wait_waiting(long long n)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (udt_status("waiting") >= n)
			return 0;
		udt_msleep(5);
	}
	return -1;
}

/*
 * The known call chain. udt_chain() calls udt_chain1() -> udt_chain2() ->
 * udt_chain3() -> udt_chain_leaf(), which writes @cmd to @fd with a system
 * call instruction of its own and stores the address right after it in
 * c->ip: entry 0 of the trace. The statement after each call keeps gcc from
 * turning it into a tail call; the buffer keeps the leaf's frame.
 */
struct udt_chain {
	int fd;
	const char *cmd;
	unsigned long ip;
	long ret;
	int depth;
};

static __udt_chain long udt_chain_leaf(struct udt_chain *c)
{
	char buf[256];
	size_t len = strlen(c->cmd);
	unsigned long ip;
	long ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, c->cmd, len);
#ifdef __x86_64__
	ret = SYS_write;
	asm volatile("lea 1f(%%rip), %1\n\t"
		     "syscall\n"
		     "1:"
		     : "+a" (ret), "=&r" (ip)
		     : "D" ((long)c->fd), "S" (buf), "d" (len)
		     : "rcx", "r11", "memory");
#elif defined(__i386__)
	ret = 4;	/* __NR_write of the i386 system call table */
	asm volatile("movl $1f, %1\n\t"
		     "int $0x80\n"
		     "1:"
		     : "+a" (ret), "=&r" (ip)
		     : "b" (c->fd), "c" (buf), "d" (len)
		     : "memory");
#else
#error "unsupported architecture"
#endif
	c->ip = ip;
	c->ret = ret;
	c->depth++;
	return ret;
}

static __udt_chain long udt_chain3(struct udt_chain *c)
{
	long ret = udt_chain_leaf(c);

	c->depth++;
	return ret;
}

static __udt_chain long udt_chain2(struct udt_chain *c)
{
	long ret = udt_chain3(c);

	c->depth++;
	return ret;
}

static __udt_chain long udt_chain1(struct udt_chain *c)
{
	long ret = udt_chain2(c);

	c->depth++;
	return ret;
}

/* Write @cmd through the known chain; returns the raw syscall result. */
static __udt_chain long udt_chain(int fd, const char *cmd, unsigned long *ip)
{
	struct udt_chain c = { .fd = fd, .cmd = cmd };
	long ret = udt_chain1(&c);

	if (ip)
		*ip = c.ip;
	return ret;
}

/*
 * Does @r hold the chain above, frame by frame? @ip is entry 0 when known,
 * else 0 (then it only has to lie in the leaf). Returns the number of the
 * first wrong frame, or 0 when all match.
 */
static inline int udt_chain_mismatch(const struct udt_record *r, unsigned long ip)
{
	void *fns[] = { udt_chain3, udt_chain2, udt_chain1, udt_chain };
	unsigned int i;

	if (r->nr_ips < 5)
		return 100 + r->nr_ips;
	if (ip ? r->ips[0] != ip : !udt_ip_in(r->ips[0], udt_chain_leaf))
		return 1;
	for (i = 0; i < 4; i++)
		if (!udt_ip_in(r->ips[i + 1], fns[i]))
			return i + 2;
	return 0;
}

/* End of the chain function that starts at @start: the next one's start. */
static inline unsigned long udt_fn_end(unsigned long start)
{
	unsigned long fns[] = {
		(unsigned long)udt_chain_leaf, (unsigned long)udt_chain3,
		(unsigned long)udt_chain2, (unsigned long)udt_chain1,
		(unsigned long)udt_chain, (unsigned long)__stop_udt_chain_text,
	};
	unsigned long end = (unsigned long)__stop_udt_chain_text;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fns); i++)
		if (fns[i] > start && fns[i] < end)
			end = fns[i];
	return end;
}

#endif /* UNWIND_TEST_H */
