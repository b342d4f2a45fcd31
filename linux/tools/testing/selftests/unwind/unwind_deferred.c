// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user-space unwinding: what user space can observe of the
 * contract of unwind_deferred_request(), driven through the debugfs
 * interface of the test module (CONFIG_TEST_UNWIND_DEFERRED).
 */
#include "unwind_test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define MAX_RECS 16

FIXTURE(udt) {
	int fd;
	int id;
};

FIXTURE_SETUP(udt)
{
	self->fd = udt_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s (needs CONFIG_TEST_UNWIND_DEFERRED and debugfs)",
		     UDT_CONTROL, strerror(errno));
	ASSERT_EQ(0, udt_cmd(self->fd, NULL, "reset"));
	self->id = udt_register(self->fd);
	ASSERT_LE(0, self->id);
}

FIXTURE_TEARDOWN(udt)
{
	if (self->fd < 0)
		return;
	udt_cmd(self->fd, NULL, "reset");
	close(self->fd);
}

/* Run "request ..." with write(2) and parse its req lines into @reqs. */
static int request(int fd, struct udt_req *reqs, const char *fmt, ...)
{
	char cmd[256], res[UDT_RESULT_MAX];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = udt_cmd(fd, res, "%s %s", "request", cmd);
	if (ret)
		return ret;
	return udt_parse_reqs(res, reqs, UDT_MAX_REQS);
}

/* Entry 0 is the user ip of the system call, then each caller in turn. */
TEST_F(udt, chain_frame_by_frame)
{
	struct udt_record recs[MAX_RECS];
	char cmd[64], res[UDT_RESULT_MAX];
	struct udt_req req;
	unsigned long ip;
	int n;

	snprintf(cmd, sizeof(cmd), "request task:%d", self->id);
	ASSERT_EQ(strlen(cmd), udt_chain(self->fd, cmd, &ip));
	ASSERT_LT(0, udt_result(self->fd, res, sizeof(res)));
	ASSERT_EQ(1, udt_parse_reqs(res, &req, 1));
	ASSERT_EQ(0, req.ret);

	n = udt_records(udt_gettid(), self->id, recs, MAX_RECS);
	ASSERT_EQ(1, n);
	EXPECT_EQ(req.cookie, recs[0].cookie);
	EXPECT_STREQ("task", recs[0].ctx);
	EXPECT_EQ(recs[0].nr_ips, recs[0].nr < UDT_MAX_IPS ? recs[0].nr : UDT_MAX_IPS);
	EXPECT_EQ(0, udt_chain_mismatch(&recs[0], ip)) {
		TH_LOG("entry 0 %#llx (want %#lx), 1..4 %#llx %#llx %#llx %#llx",
		       recs[0].ips[0], ip, recs[0].ips[1], recs[0].ips[2],
		       recs[0].ips[3], recs[0].ips[4]);
	}
}

/* A direct unwind_user_faultable() and the deferred callback share one walk. */
TEST_F(udt, faultable_shares_the_walk)
{
	struct udt_record recs[MAX_RECS];
	char cmd[64], res[UDT_RESULT_MAX], *p, *end;
	long long walks = udt_status("walks");
	unsigned long ip;
	unsigned int nr, i;
	int ret, off, n;

	ASSERT_LE(0, walks);
	snprintf(cmd, sizeof(cmd), "request faultable task:%d", self->id);
	ASSERT_EQ(strlen(cmd), udt_chain(self->fd, cmd, &ip));
	ASSERT_LT(0, udt_result(self->fd, res, sizeof(res)));
	n = sscanf(res, "faultable %d %u%n", &ret, &nr, &off);
	ASSERT_EQ(2, n);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(1, udt_records(udt_gettid(), self->id, recs, MAX_RECS));
	EXPECT_EQ(0, udt_chain_mismatch(&recs[0], ip));
	EXPECT_EQ(recs[0].nr, nr);

	p = res + off;
	for (i = 0; i < nr && i < 64 && i < recs[0].nr_ips; i++) {
		EXPECT_EQ(recs[0].ips[i], strtoull(p, &end, 16));
		p = end;
	}
	EXPECT_EQ(walks + 1, udt_status("walks"));
}

/* Every request in one system call gets the same cookie, never 0. */
TEST_F(udt, cookie_same_within_entry)
{
	struct udt_req reqs[UDT_MAX_REQS];
	int id2 = udt_register(self->fd);
	int i, n;

	ASSERT_LE(0, id2);
	n = request(self->fd, reqs, "task:%d task:%d,%d irq:%d nmi:%d",
		    self->id, self->id, id2, id2, self->id);
	ASSERT_EQ(5, n);
	for (i = 0; i < n; i++) {
		EXPECT_NE(0, reqs[i].cookie);
		EXPECT_EQ(reqs[0].cookie, reqs[i].cookie);
	}
	EXPECT_EQ(0, reqs[0].ret);
	EXPECT_EQ(1, reqs[1].ret);
	EXPECT_EQ(0, reqs[2].ret);
	EXPECT_EQ(1, reqs[3].ret);
	EXPECT_EQ(1, reqs[4].ret);
}

/* Consecutive system calls get different cookies, never 0. */
TEST_F(udt, cookie_differs_between_entries)
{
	unsigned long long cookies[100];
	struct udt_req req;
	int i, j;

	for (i = 0; i < 100; i++) {
		ASSERT_EQ(1, request(self->fd, &req, "task:%d", self->id));
		ASSERT_EQ(0, req.ret);
		ASSERT_NE(0, req.cookie);
		cookies[i] = req.cookie;
		for (j = 0; j < i; j++)
			ASSERT_NE(cookies[j], cookies[i]);
	}
	EXPECT_EQ(100, udt_records(udt_gettid(), self->id, NULL, 0));
}

struct waiter {
	int id;
	int ret;
	struct udt_req req;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	int fd = udt_open();

	w->ret = fd < 0 ? -errno : request(fd, &w->req, "task:%d wait:3000", w->id);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Two threads in the kernel at the same time get different cookies. */
TEST_F(udt, cookie_differs_between_threads)
{
	struct waiter w = { .id = self->id };
	struct udt_req req;
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, waiter_fn, &w));
	ASSERT_EQ(0, udt_wait_waiting(1));
	ASSERT_EQ(1, request(self->fd, &req, "task:%d", self->id));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(1, w.ret);
	EXPECT_EQ(0, req.ret);
	EXPECT_EQ(0, w.req.ret);
	EXPECT_NE(0, req.cookie);
	EXPECT_NE(0, w.req.cookie);
	EXPECT_NE(req.cookie, w.req.cookie);
}

/* Migration between two requests keeps the cookie; one callback. */
TEST_F(udt, cookie_survives_migration)
{
	struct udt_record recs[MAX_RECS];
	struct udt_req reqs[2];
	char res[UDT_RESULT_MAX];
	int from, to, n;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, udt_cmd(self->fd, res, "request task:%d migrate task:%d",
			     self->id, self->id));
	ASSERT_EQ(2, udt_parse_reqs(res, reqs, 2));
	ASSERT_NE(NULL, strstr(res, "migrate "));
	n = sscanf(strstr(res, "migrate "), "migrate %d %d", &from, &to);
	ASSERT_EQ(2, n);
	EXPECT_NE(from, to);
	EXPECT_EQ(0, reqs[0].ret);
	EXPECT_EQ(1, reqs[1].ret);
	EXPECT_NE(0, reqs[0].cookie);
	EXPECT_EQ(reqs[0].cookie, reqs[1].cookie);
	ASSERT_EQ(1, udt_records(udt_gettid(), self->id, recs, MAX_RECS));
	EXPECT_EQ(reqs[0].cookie, recs[0].cookie);
}

/* Task, IRQ and NMI requests in one entry: one callback, one walk. */
static void one_callback(struct __test_metadata *_metadata, int fd, int id,
			 const char *steps, const char *ctx)
{
	struct udt_req reqs[UDT_MAX_REQS];
	struct udt_record recs[MAX_RECS];
	long long walks = udt_status("walks");
	char cmd[128];
	int i, n;

	ASSERT_LE(0, walks);
	snprintf(cmd, sizeof(cmd), steps, id, id, id);
	n = request(fd, reqs, "%s", cmd);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(i ? 1 : 0, reqs[i].ret);
		EXPECT_NE(0, reqs[i].cookie);
		EXPECT_EQ(reqs[0].cookie, reqs[i].cookie);
	}
	ASSERT_EQ(1, udt_records(udt_gettid(), id, recs, MAX_RECS));
	EXPECT_EQ(reqs[0].cookie, recs[0].cookie);
	EXPECT_STREQ(ctx, recs[0].ctx);
	EXPECT_LE(1, recs[0].nr);
	EXPECT_EQ(walks + 1, udt_status("walks"));
}

TEST_F(udt, task_irq_nmi_one_callback)
{
	one_callback(_metadata, self->fd, self->id, "task:%d irq:%d nmi:%d",
		     "task,irq,nmi");
}

TEST_F(udt, nmi_irq_task_one_callback)
{
	one_callback(_metadata, self->fd, self->id, "nmi:%d irq:%d task:%d",
		     "task,irq,nmi");
}

TEST_F(udt, irq_nmi_irq_one_callback)
{
	one_callback(_metadata, self->fd, self->id, "irq:%d nmi:%d irq:%d",
		     "irq,nmi");
}

/* Several tracers in one entry: one callback each, one shared walk. */
TEST_F(udt, tracers_share_one_walk)
{
	struct udt_req reqs[UDT_MAX_REQS];
	struct udt_record recs[4][MAX_RECS];
	long long walks = udt_status("walks");
	int ids[4] = { self->id }, i;
	unsigned int j;

	ASSERT_LE(0, walks);
	for (i = 1; i < 4; i++) {
		ids[i] = udt_register(self->fd);
		ASSERT_LE(0, ids[i]);
	}
	ASSERT_EQ(3, request(self->fd, reqs, "task:%d,%d,%d", ids[0], ids[1], ids[2]));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, reqs[i].ret);
		EXPECT_EQ(reqs[0].cookie, reqs[i].cookie);
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, udt_records(udt_gettid(), ids[i], recs[i], MAX_RECS));
		EXPECT_EQ(reqs[0].cookie, recs[i][0].cookie);
		ASSERT_EQ(recs[0][0].nr, recs[i][0].nr);
		ASSERT_EQ(recs[0][0].nr_ips, recs[i][0].nr_ips);
		for (j = 0; j < recs[0][0].nr_ips; j++)
			EXPECT_EQ(recs[0][0].ips[j], recs[i][0].ips[j]);
	}
	EXPECT_EQ(0, udt_records(0, ids[3], recs[3], MAX_RECS));
	EXPECT_EQ(walks + 1, udt_status("walks"));
	EXPECT_EQ(3, udt_status("callbacks"));
}

/*
 * Write @cmd with the frame pointer set to @fp for the duration of the
 * system call; the red zone below the stack pointer is left alone.
 */
static __udt_noinline long write_with_fp(int fd, const char *cmd,
					 unsigned long fp, unsigned long *ip)
{
	char buf[256];
	size_t len = strlen(cmd);
	unsigned long label;
	long ret = SYS_write;

	memcpy(buf, cmd, len);
	asm volatile("lea -128(%%rsp), %%rsp\n\t"
		     "push %%rbp\n\t"
		     "mov %[fp], %%rbp\n\t"
		     "lea 1f(%%rip), %[ip]\n\t"
		     "syscall\n"
		     "1:\n\t"
		     "pop %%rbp\n\t"
		     "lea 128(%%rsp), %%rsp"
		     : "+a" (ret), [ip] "=&r" (label)
		     : "D" ((long)fd), "S" (buf), "d" (len), [fp] "r" (fp)
		     : "rcx", "r11", "memory");
	*ip = label;
	return ret;
}

/* An address above the stack that nothing maps, or 0. */
static unsigned long unmapped_above_stack(void)
{
	char *maps = udt_slurp("/proc/self/maps"), *line;
	unsigned long lo, hi, stack_end = 0, cand;
	int k, free_cand;

	for (line = maps; line && *line; line = strchr(line, '\n') + 1) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && strstr(line, "[stack]") &&
		    strstr(line, "[stack]") < strchr(line, '\n'))
			stack_end = hi;
		if (!strchr(line, '\n'))
			break;
	}
	for (k = 1, cand = 0; stack_end && k < 64 && !cand; k++) {
		cand = stack_end + k * 0x10000UL;
		free_cand = cand < 0x7ffffffff000UL;
		for (line = maps; free_cand && line && *line; line = strchr(line, '\n') + 1) {
			if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && cand >= lo && cand < hi)
				free_cand = 0;
			if (!strchr(line, '\n'))
				break;
		}
		if (!free_cand)
			cand = 0;
	}
	free(maps);
	return cand;
}

FIXTURE(hostile) {
	int fd;
	int id;
};

FIXTURE_VARIANT(hostile) {
	int kind;
};

enum { FP_SELF, FP_CYCLE, FP_KERNEL, FP_UNALIGNED, FP_UNMAPPED, FP_NULL, FP_KERNEL_RA };

FIXTURE_VARIANT_ADD(hostile, self) { .kind = FP_SELF };
FIXTURE_VARIANT_ADD(hostile, cycle) { .kind = FP_CYCLE };
FIXTURE_VARIANT_ADD(hostile, kernel) { .kind = FP_KERNEL };
FIXTURE_VARIANT_ADD(hostile, unaligned) { .kind = FP_UNALIGNED };
FIXTURE_VARIANT_ADD(hostile, unmapped) { .kind = FP_UNMAPPED };
FIXTURE_VARIANT_ADD(hostile, null) { .kind = FP_NULL };
FIXTURE_VARIANT_ADD(hostile, kernel_return_address) { .kind = FP_KERNEL_RA };

FIXTURE_SETUP(hostile)
{
	self->fd = udt_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s", UDT_CONTROL, strerror(errno));
	ASSERT_EQ(0, udt_cmd(self->fd, NULL, "reset"));
	self->id = udt_register(self->fd);
	ASSERT_LE(0, self->id);
}

FIXTURE_TEARDOWN(hostile)
{
	if (self->fd < 0)
		return;
	udt_cmd(self->fd, NULL, "reset");
	close(self->fd);
}

/* A hostile frame pointer ends the walk early; the callback still comes. */
TEST_F(hostile, walk_ends_callback_comes)
{
	unsigned long frame[2], other[2];
	unsigned long fp = 0, ip, user_ra = (unsigned long)udt_chain3 + 4;
	struct udt_record recs[MAX_RECS];
	char cmd[64], res[UDT_RESULT_MAX];
	long long walks = udt_status("walks");
	struct udt_req req;
	unsigned int i;

	ASSERT_LE(0, walks);
	/* The fake frames lie on the stack above the system call's sp. */
	switch (variant->kind) {
	case FP_SELF:
		frame[0] = (unsigned long)frame;
		frame[1] = user_ra;
		fp = (unsigned long)frame;
		break;
	case FP_CYCLE:
		frame[0] = (unsigned long)other;
		frame[1] = user_ra;
		other[0] = (unsigned long)frame;
		other[1] = user_ra;
		fp = (unsigned long)frame;
		break;
	case FP_KERNEL:
		fp = 0xffffffff81000000UL;
		break;
	case FP_UNALIGNED:
		frame[0] = 0;
		frame[1] = user_ra;
		fp = (unsigned long)frame + 3;
		break;
	case FP_UNMAPPED:
		fp = unmapped_above_stack();
		ASSERT_NE(0, fp);
		break;
	case FP_NULL:
		fp = 0;
		break;
	case FP_KERNEL_RA:
		frame[0] = 0;
		frame[1] = 0xffffffff81000000UL;
		fp = (unsigned long)frame;
		break;
	}

	snprintf(cmd, sizeof(cmd), "request task:%d", self->id);
	ASSERT_EQ(strlen(cmd), write_with_fp(self->fd, cmd, fp, &ip));
	ASSERT_LT(0, udt_result(self->fd, res, sizeof(res)));
	ASSERT_EQ(1, udt_parse_reqs(res, &req, 1));
	ASSERT_EQ(0, req.ret);

	ASSERT_EQ(1, udt_records(udt_gettid(), self->id, recs, MAX_RECS));
	EXPECT_EQ(req.cookie, recs[0].cookie);
	EXPECT_GE(3, recs[0].nr);
	if (recs[0].nr_ips)
		EXPECT_EQ(ip, recs[0].ips[0]);
	for (i = 0; i < recs[0].nr_ips; i++)
		EXPECT_GT(0x800000000000ULL, recs[0].ips[i]);
	EXPECT_EQ(walks + 1, udt_status("walks"));
}

/* Fork a child that runs @fn(@arg) with its own control file, then exits. */
static pid_t spawn(void (*fn)(int fd, void *arg), void *arg)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	fd = udt_open();
	if (fd < 0)
		_exit(100);
	fn(fd, arg);
	_exit(0);
}

static void chain_and_wait(int fd, void *arg)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "request %s", (const char *)arg);
	udt_chain(fd, cmd, NULL);
	_exit(101);
}

/* Kill @pid once it blocks in a "wait" step; returns its wait status. */
static int kill_when_waiting(pid_t pid)
{
	int status = 0;

	if (udt_wait_waiting(1))
		kill(pid, SIGKILL);
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Killed after requesting, before returning to user space: callback comes. */
TEST_F(udt, sigkill_after_request)
{
	struct udt_record recs[MAX_RECS];
	char steps[64];
	int status;
	pid_t pid;

	snprintf(steps, sizeof(steps), "task:%d wait:10000", self->id);
	pid = spawn(chain_and_wait, steps);
	ASSERT_LT(0, pid);
	status = kill_when_waiting(pid);
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));

	ASSERT_EQ(1, udt_records(pid, self->id, recs, MAX_RECS));
	EXPECT_NE(0, recs[0].cookie);
	EXPECT_STREQ("task", recs[0].ctx);
	EXPECT_EQ(0, udt_chain_mismatch(&recs[0], 0));
}

/* A request made on the way into do_exit() is served from the exit path. */
TEST_F(udt, request_in_do_exit)
{
	struct udt_record recs[MAX_RECS];
	char line[128], steps[] = "wait:10000";
	int fired, epid, ret, status, n;
	unsigned long long cookie;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = udt_open();

		if (fd < 0 || udt_cmd(fd, NULL, "arm exit %d", self->id))
			_exit(100);
		chain_and_wait(fd, steps);
	}
	status = kill_when_waiting(pid);
	ASSERT_TRUE(WIFSIGNALED(status));

	ASSERT_EQ(0, udt_status_line("exit", line, sizeof(line)));
	n = sscanf(line, "exit %d %d %d %llx", &fired, &epid, &ret, &cookie);
	ASSERT_EQ(4, n);
	ASSERT_EQ(1, fired);
	EXPECT_EQ(pid, epid);
	ASSERT_EQ(0, ret);
	EXPECT_NE(0, cookie);

	ASSERT_EQ(1, udt_records(pid, self->id, recs, MAX_RECS));
	EXPECT_EQ(cookie, recs[0].cookie);
	EXPECT_EQ(0, udt_chain_mismatch(&recs[0], 0)) {
		TH_LOG("nr %u: %#llx %#llx %#llx", recs[0].nr, recs[0].ips[0],
		       recs[0].ips[1], recs[0].ips[2]);
	}
}

/* A child does not inherit the request pending in its parent's fork(). */
TEST_F(udt, fork_does_not_inherit)
{
	struct udt_record recs[MAX_RECS];
	unsigned long long cookie;
	int fired, fpid, ret, status, n;
	char line[128];
	pid_t pid;

	ASSERT_EQ(0, udt_cmd(self->fd, NULL, "arm fork %d", self->id));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned long long parent_cookie;
		struct udt_req req;
		int fd = udt_open();

		if (fd < 0 || udt_status_line("fork", line, sizeof(line)) ||
		    sscanf(line, "fork %*d %*d %*d %llx", &parent_cookie) != 1)
			_exit(100);
		if (request(fd, &req, "task:%d", self->id) != 1)
			_exit(101);
		if (req.ret)
			_exit(102);
		_exit(req.cookie && req.cookie != parent_cookie ? 0 : 103);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	ASSERT_EQ(0, udt_status_line("fork", line, sizeof(line)));
	n = sscanf(line, "fork %d %d %d %llx", &fired, &fpid, &ret, &cookie);
	ASSERT_EQ(4, n);
	ASSERT_EQ(1, fired);
	EXPECT_EQ(udt_gettid(), fpid);
	EXPECT_EQ(0, ret);
	ASSERT_EQ(1, udt_records(udt_gettid(), self->id, recs, MAX_RECS));
	EXPECT_EQ(cookie, recs[0].cookie);
	ASSERT_EQ(1, udt_records(pid, self->id, recs, MAX_RECS));
	EXPECT_NE(cookie, recs[0].cookie);
}

struct requester {
	int a, b;
	int stop;
	int writes;
	int ok_b;
};

static void *requester_fn(void *arg)
{
	struct requester *r = arg;
	struct udt_req reqs[4];
	int fd = udt_open();

	while (fd >= 0 && !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) &&
	       r->writes < 200) {
		if (request(fd, reqs, "task:%d,%d wait:5", r->a, r->b) != 2)
			break;
		r->writes++;
		if (!reqs[1].ret)
			r->ok_b++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Once cancel returns, no callback of the tracer runs, despite racers. */
TEST_F(udt, cancel_races_pending_requests)
{
	struct requester r[4];
	pthread_t threads[4];
	struct udt_req req;
	int b = udt_register(self->fd);
	int i, ok_b = 0;

	ASSERT_LE(0, b);
	for (i = 0; i < 4; i++) {
		r[i] = (struct requester){ .a = self->id, .b = b };
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, requester_fn, &r[i]));
	}
	ASSERT_EQ(0, udt_wait_waiting(2));
	udt_msleep(50);
	ASSERT_EQ(0, udt_cmd(self->fd, NULL, "cancel %d", self->id));
	EXPECT_EQ(0, udt_status("late"));
	udt_msleep(50);
	for (i = 0; i < 4; i++)
		__atomic_store_n(&r[i].stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(threads[i], NULL));
		ok_b += r[i].ok_b;
	}
	EXPECT_EQ(0, udt_status("late"));
	EXPECT_EQ(0, udt_status("dropped"));
	EXPECT_EQ(-EINVAL, request(self->fd, &req, "task:%d", self->id));

	/* Every request of the other tracer was still called back. */
	EXPECT_EQ(ok_b, udt_records(0, b, NULL, 0));
	EXPECT_LT(0, ok_b);
}

struct pending_pair {
	int a, b;
	int ret;
	pid_t tid;
};

static void *pending_pair_fn(void *arg)
{
	struct pending_pair *p = arg;
	struct udt_req reqs[2];
	int fd = udt_open();

	p->tid = udt_gettid();
	p->ret = fd < 0 ? -errno : request(fd, reqs, "task:%d,%d wait:1000", p->a, p->b);
	if (p->ret == 2 && (reqs[0].ret || reqs[1].ret))
		p->ret = -1;
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* A request still pending when its tracer is cancelled is dropped. */
TEST_F(udt, cancel_drops_pending_request)
{
	struct pending_pair p = { .a = self->id, .b = udt_register(self->fd) };
	pthread_t thread;

	ASSERT_LE(0, p.b);
	ASSERT_EQ(0, pthread_create(&thread, NULL, pending_pair_fn, &p));
	ASSERT_EQ(0, udt_wait_waiting(1));
	ASSERT_EQ(0, udt_cmd(self->fd, NULL, "cancel %d", self->id));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(2, p.ret);

	EXPECT_EQ(0, udt_records(p.tid, self->id, NULL, 0));
	EXPECT_EQ(1, udt_records(p.tid, p.b, NULL, 0));
	EXPECT_EQ(0, udt_status("late"));
}

/* A cancelled tracer's bit goes back to the pool and works for a new one. */
TEST_F(udt, cancel_frees_the_bit)
{
	struct udt_req req, reqs[2];
	struct udt_record recs[MAX_RECS];
	int n = 1, last = self->id, id;

	while ((id = udt_register(self->fd)) >= 0) {
		last = id;
		n++;
		ASSERT_GT(64, n);
	}
	EXPECT_EQ(-EBUSY, udt_cmd(self->fd, NULL, "register"));
	ASSERT_EQ(0, udt_cmd(self->fd, NULL, "cancel %d", self->id));
	id = udt_register(self->fd);
	ASSERT_LE(0, id);
	EXPECT_EQ(-EBUSY, udt_cmd(self->fd, NULL, "register"));

	ASSERT_EQ(2, request(self->fd, reqs, "task:%d,%d", id, last));
	ASSERT_EQ(1, udt_records(udt_gettid(), id, recs, MAX_RECS));
	ASSERT_EQ(1, udt_records(udt_gettid(), last, recs, MAX_RECS));
	ASSERT_EQ(1, request(self->fd, &req, "task:%d", id));
	EXPECT_EQ(0, req.ret);
}

/* Kernel threads cannot request a user stack. */
TEST_F(udt, kthread_gets_einval)
{
	unsigned long long cookie;
	char res[UDT_RESULT_MAX];
	int ret, n;

	ASSERT_EQ(0, udt_cmd(self->fd, res, "kthread %d", self->id));
	n = sscanf(res, "kthread %d %llx", &ret, &cookie);
	ASSERT_EQ(2, n);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ(0, cookie);
	EXPECT_EQ(0, udt_records(0, self->id, NULL, 0));
}

/* A task that is exiting (past exit_mm()) cannot request a user stack. */
TEST_F(udt, exiting_task_gets_einval)
{
	int fired, cpid, exiting, ret, status, n;
	unsigned long long cookie;
	char line[128];
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = udt_open();

		if (fd < 0 || udt_cmd(fd, NULL, "arm close %d", self->id))
			_exit(100);
		_exit(0);	/* the file is released by do_exit() */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	ASSERT_EQ(0, udt_status_line("close", line, sizeof(line)));
	n = sscanf(line, "close %d %d %d %d %llx", &fired, &cpid, &exiting,
		   &ret, &cookie);
	ASSERT_EQ(5, n);
	ASSERT_EQ(1, fired);
	EXPECT_EQ(pid, cpid);
	EXPECT_EQ(1, exiting);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ(0, cookie);
	EXPECT_EQ(0, udt_records(pid, self->id, NULL, 0));
}

/* Malformed commands fail with -EINVAL and change nothing. */
TEST_F(udt, bad_input)
{
	static const char * const bad[] = {
		" ", "bogus", "register 0", "register x", "register 1 2",
		"cancel", "cancel 123456", "request", "request  ", "request task",
		"request task:", "request task:123456", "request task:x",
		"request irq:0,,1", "request wait", "request wait:100000",
		"request wait:x", "request migrate:1", "request faultable:1",
		"request xyz:0", "kthread", "kthread 123456", "arm", "arm fork",
		"arm bogus 0", "arm exit 123456", "reset now",
	};
	char res[UDT_RESULT_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = write(self->fd, bad[i], strlen(bad[i])) < 0 ? -errno : 0;

		EXPECT_EQ(-EINVAL, ret) {
			TH_LOG("command \"%s\"", bad[i]);
		}
	}
	/* The tracer of the fixture survived. */
	ASSERT_EQ(0, udt_cmd(self->fd, res, "request task:%d", self->id));
	EXPECT_EQ(0, udt_status("late"));
}

TEST_HARNESS_MAIN
