// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user callchains of perf events, seen through perf_event_open()
 * alone: a sampling event with defer_callchain ends the callchain of each
 * sample with [PERF_CONTEXT_USER_DEFERRED, cookie], and the event with
 * defer_output gets one PERF_RECORD_CALLCHAIN_DEFERRED per cookie with the
 * user stack, walked once per stay in the kernel. Software (hrtimer)
 * events are used, so this runs without a PMU.
 *
 * The sampled program is a forked child running a known call chain:
 * pd_loop() -> pd_a() -> pd_b() -> pd_c(), which spins in user mode and
 * then burns kernel time in a long readv() of /dev/zero made with a system
 * call instruction of its own. The parent reads the ring buffer while the
 * child runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/elf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#ifndef __x86_64__
#error "the workload enters the kernel with the x86_64 syscall instruction"
#endif

/* The ABI under test, independent of the installed headers. */
#define PD_RECORD_CALLCHAIN_DEFERRED	22
#define PD_CONTEXT_USER_DEFERRED	((__u64)-640)

/*
 * The single-bit flags of perf_event_attr are one __u64 after read_format:
 * sigtrap is bit 37, the two new bits follow it (38 and 39).
 */
#define PD_ATTR_FLAGS_OFFSET	(offsetof(struct perf_event_attr, read_format) + 8)
#define PD_ATTR_SIGTRAP		0x2000000000ULL
#define PD_ATTR_DEFER_CALLCHAIN	0x4000000000ULL
#define PD_ATTR_DEFER_OUTPUT	0x8000000000ULL

#define PD_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CALLCHAIN)
/* sample_id of other records: pid/tid, time, identifier. */
#define PD_SAMPLE_ID_SIZE	24

#define PD_MAX_IPS	32		/* user frames kept per sample/record */
#define PD_MAX_SAMPLES	20000
#define PD_MAX_RECORDS	10000
#define PD_RING_PAGES	512		/* 2 MiB of ring buffer */
#define PD_BUF_SIZE	(256 << 10)
/*
 * readv() of 8 MiB, about 1.5 ms under QEMU's TCG: at a 1 ms period many
 * stays get two samples or more. exit_group's child, sampled every 100 us,
 * reads 2 MiB.
 */
#define PD_IOV		32
#define PD_EXIT_IOV	8
/*
 * readv() of 1 GiB for the SIGKILL test: a stay of about 180 ms under QEMU's
 * TCG, 20 ms or more with KVM, much longer than the parent takes to see
 * three of its samples and send the signal, which ends it early.
 */
#define PD_KILL_IOV	1024
#define PD_KILL_BUF_SIZE (1 << 20)
#define PD_EXIT_THREADS	512
/* Frames after the user ip that must match: pd_b, pd_a, pd_loop, caller. */
#define PD_MIN_FRAMES	4

/* Functions of the known chain; their bounds come from the symbol table. */
#define __pd_chain	__attribute__((__noinline__, __noclone__))

/* What the child shares with the parent. */
struct pd_shared {
	int stop;			/* parent: leave the loop */
	int exit_group;			/* leave it through exit_group in pd_c() */
	int exit_now;			/* child: the next pd_c() exits */
	int ready;			/* child: set up, waiting for go */
	int zero_fd;
	unsigned long loops;
	unsigned long spin;		/* iterations of the user-mode loop */
	unsigned int iovcnt;
	size_t iov_len;
	struct iovec iov[PD_KILL_IOV];
	unsigned long syscall_ip;	/* after pd_c()'s readv instruction */
	unsigned long exit_ip;		/* after pd_c()'s exit_group instruction */
	unsigned long spin_lo, spin_hi;	/* pd_c()'s user-mode loop */
	unsigned long stack_lo, stack_hi;
	unsigned int nr_ref;		/* return addresses above pd_c() ... */
	unsigned long ref[PD_MAX_IPS];	/* ... read through its frame pointer */
};

/* Walk the frame pointers from @fp, as the kernel does, into sh->ref. */
static void pd_walk(struct pd_shared *sh, unsigned long *fp)
{
	unsigned long *next;

	while (sh->nr_ref < PD_MAX_IPS) {
		sh->ref[sh->nr_ref++] = fp[1];
		next = (unsigned long *)fp[0];
		if (next <= fp || ((unsigned long)next & 7) ||
		    (unsigned long)next + 16 > sh->stack_hi)
			break;
		fp = next;
	}
}

static __pd_chain long pd_c(struct pd_shared *sh)
{
	unsigned long n = sh->spin, lo, hi, ip;
	long ret;

	asm volatile("lea 1f(%%rip), %1\n\t"
		     "lea 2f(%%rip), %2\n"
		     "1:\tdec %0\n\t"
		     "jnz 1b\n"
		     "2:"
		     : "+r" (n), "=&r" (lo), "=&r" (hi));
	sh->spin_lo = lo;
	sh->spin_hi = hi;
	if (!sh->nr_ref)
		pd_walk(sh, __builtin_frame_address(0));

	if (sh->exit_now) {
		ret = SYS_exit_group;
		asm volatile("lea 1f(%%rip), %%rcx\n\t"
			     "mov %%rcx, %1\n\t"
			     "syscall\n"
			     "1:"
			     : "+a" (ret), "=m" (sh->exit_ip)
			     : "D" (0L)
			     : "rcx", "r11", "memory");
	}

	ret = SYS_readv;
	asm volatile("lea 1f(%%rip), %1\n\t"
		     "syscall\n"
		     "1:"
		     : "+a" (ret), "=&r" (ip)
		     : "D" ((long)sh->zero_fd), "S" (sh->iov), "d" ((long)sh->iovcnt)
		     : "rcx", "r11", "memory");
	sh->syscall_ip = ip;
	return ret;
}

static __pd_chain long pd_b(struct pd_shared *sh)
{
	long ret = pd_c(sh);

	sh->loops++;
	return ret;
}

static __pd_chain long pd_a(struct pd_shared *sh)
{
	long ret = pd_b(sh);

	sh->loops++;
	return ret;
}

static __pd_chain void pd_loop(struct pd_shared *sh)
{
	for (;;) {
		pd_a(sh);
		sh->loops++;
		if (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
			continue;
		if (!sh->exit_group)
			break;
		sh->exit_now = 1;
	}
}

/* Size of the function at @addr from our own ELF symbol table, or 0. */
static unsigned long pd_fn_size(unsigned long addr)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	unsigned long size = 0;
	const struct elf64_shdr *sh;
	const struct elf64_sym *sym;
	const struct elf64_hdr *eh;
	unsigned int i, j;
	struct stat st;
	void *map;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh)) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	eh = map;
	sh = map + eh->e_shoff;
	for (i = 0; i < eh->e_shnum && !size; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		sym = map + sh[i].sh_offset;
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (ELF64_ST_TYPE(sym[j].st_info) == STT_FUNC &&
			    sym[j].st_value == addr && sym[j].st_size) {
				size = sym[j].st_size;
				break;
			}
	}
	munmap(map, st.st_size);
	return size;
}

/* Is the return address @ip inside the function @fn? */
static bool pd_ip_in(__u64 ip, void *fn)
{
	unsigned long start = (unsigned long)fn;

	return ip > start && ip < start + pd_fn_size(start);
}

/* The bounds of the main thread's stack, from /proc/self/maps. */
static void pd_stack_bounds(struct pd_shared *sh)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]"))
			sscanf(line, "%lx-%lx", &sh->stack_lo, &sh->stack_hi);
	if (f)
		fclose(f);
}

static void *pd_idle_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/*
 * The sampled child: prepares everything, waits for the parent on @go_fd,
 * then runs the chain until told to stop. Extra idle threads make its
 * exit_group() spend time in the kernel before the task is marked exiting.
 */
static void pd_child(struct pd_shared *sh, int go_fd, unsigned int threads)
{
	pthread_attr_t attr;
	pthread_t thread;
	unsigned int i;
	char *buf;
	char go;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sh->zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	buf = mmap(NULL, sh->iov_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (sh->zero_fd < 0 || buf == MAP_FAILED)
		_exit(100);
	memset(buf, 1, sh->iov_len);
	for (i = 0; i < sh->iovcnt; i++)
		sh->iov[i] = (struct iovec){ .iov_base = buf, .iov_len = sh->iov_len };
	pd_stack_bounds(sh);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < threads; i++)
		if (pthread_create(&thread, &attr, pd_idle_thread, NULL))
			_exit(101);
	__atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
	if (read(go_fd, &go, 1) != 1)
		_exit(102);
	pd_loop(sh);
	_exit(0);
}

/* One sample of the sampling or of the control event. */
struct pd_sample {
	__u64 id, ip, time;
	__u64 cookie;			/* when deferred */
	pid_t pid, tid;
	bool kernel;			/* taken in kernel mode */
	bool deferred;			/* ends with [USER_DEFERRED, cookie] */
	unsigned int nr_user;		/* inline user frames (control event) */
	__u64 user[PD_MAX_IPS];
};

/* One PERF_RECORD_CALLCHAIN_DEFERRED. */
struct pd_record {
	__u64 cookie, time, id;
	pid_t pid, tid;
	unsigned int nr;		/* user frames, after PERF_CONTEXT_USER */
	__u64 ips[PD_MAX_IPS];
};

enum pd_mode { PD_RUN, PD_EXIT_GROUP, PD_SIGKILL };

struct pd_run {
	enum pd_mode mode;
	struct pd_shared *sh;
	pid_t child;			/* while it runs */
	pid_t pid;			/* the child */
	int status;			/* the child's wait status */
	int go_fd;
	int fd_track, fd_sample, fd_control;
	int fd_track2;			/* a second event with defer_output */
	__u64 id_track, id_sample, id_control, id_track2;
	struct perf_event_mmap_page *meta;
	size_t ring_size;

	struct pd_sample *samples;
	unsigned int nr_samples;
	struct pd_record *records;
	unsigned int nr_records;
	unsigned int lost, overflow, malformed;
	char why[160];			/* the first malformed record */

	/* progress, for the stop condition */
	unsigned int nr_in_syscall;	/* records starting at syscall_ip */
	unsigned int nr_in_spin;	/* ... and inside the user-mode loop */
	unsigned int nr_shared;		/* later kernel samples of a stay */
	unsigned int nr_control;	/* control samples in the system call */
	__u64 last_cookie;		/* of the last deferred sample */
	unsigned int last_count;	/* kernel samples in a row with it */
	__u64 kill_cookie;		/* pending when SIGKILL was sent */
	__u64 kill_time;
};

static __u64 pd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pd_malformed(struct pd_run *run, const char *fmt, __u64 a, __u64 b)
{
	if (!run->malformed++)
		snprintf(run->why, sizeof(run->why), fmt, a, b);
}

static void pd_attr_set(struct perf_event_attr *attr, __u64 bits)
{
	__u64 flags;

	memcpy(&flags, (char *)attr + PD_ATTR_FLAGS_OFFSET, sizeof(flags));
	flags |= bits;
	memcpy((char *)attr + PD_ATTR_FLAGS_OFFSET, &flags, sizeof(flags));
}

/*
 * Open a software event on @pid with the sample layout parsed below,
 * disabled until its output is set up.
 */
static int pd_open(__u64 config, __u64 period, __u64 bits, pid_t pid)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.disabled = 1;
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.sample_period = period;
	attr.sample_type = PD_SAMPLE_TYPE;
	attr.sample_id_all = 1;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	pd_attr_set(&attr, bits);
	return syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Copy @len bytes at ring offset @pos, across the wrap. */
static void pd_ring_copy(struct pd_run *run, __u64 pos, void *dst, size_t len)
{
	unsigned char *data = (unsigned char *)run->meta + run->meta->data_offset;
	size_t off = pos & (run->ring_size - 1);
	size_t first = run->ring_size - off;

	if (first > len)
		first = len;
	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

static void pd_parse_sample(struct pd_run *run, const struct perf_event_header *hdr,
			    const __u64 *w)
{
	unsigned int nr_words = (hdr->size - sizeof(*hdr)) / 8, nr, i, user = 0;
	struct pd_sample *s;

	if (nr_words < 5 || hdr->size != sizeof(*hdr) + 8 * (5 + w[4])) {
		pd_malformed(run, "sample of %llu bytes, nr %llu", hdr->size,
			     nr_words < 5 ? 0 : w[4]);
		return;
	}
	if (run->nr_samples == PD_MAX_SAMPLES) {
		run->overflow++;
		return;
	}
	s = &run->samples[run->nr_samples++];
	memset(s, 0, sizeof(*s));
	s->id = w[0];
	s->ip = w[1];
	s->pid = (__u32)w[2];
	s->tid = w[2] >> 32;
	s->time = w[3];
	s->kernel = (hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	nr = w[4];
	w += 5;

	if (s->kernel && (!nr || w[0] != PERF_CONTEXT_KERNEL))
		pd_malformed(run, "kernel sample, callchain starts with %#llx (nr %llu)",
			     nr ? w[0] : 0, nr);
	if (nr >= 2 && w[nr - 2] == PD_CONTEXT_USER_DEFERRED) {
		s->deferred = true;
		s->cookie = w[nr - 1];
		if (!s->kernel && nr != 2)
			pd_malformed(run, "user sample, deferred chain of %llu entries, ip %#llx",
				     nr, s->ip);
	}
	for (i = 0; i < nr; i++) {
		if (s->deferred && i < nr - 2 && w[i] == PD_CONTEXT_USER_DEFERRED)
			pd_malformed(run, "two USER_DEFERRED markers (at %llu of %llu)", i, nr);
		if (w[i] == PERF_CONTEXT_USER) {
			if (s->deferred)
				pd_malformed(run, "deferred sample, user part at %llu of %llu",
					     i, nr);
			user = i + 1;
		}
	}
	for (i = user; user && i < nr && s->nr_user < PD_MAX_IPS; i++)
		s->user[s->nr_user++] = w[i];

	if (s->id == run->id_control && s->kernel && s->nr_user &&
	    s->user[0] == run->sh->syscall_ip)
		run->nr_control++;
	if (s->id != run->id_sample)
		return;
	if (!s->deferred) {
		run->last_count = 0;
		return;
	}
	if (s->cookie == run->last_cookie) {
		run->nr_shared += s->kernel && run->last_count;
		run->last_count += s->kernel && run->last_count;
	} else {
		run->last_cookie = s->cookie;
		/* Count kernel samples of stays that began in the kernel. */
		run->last_count = s->kernel;
	}
}

static void pd_parse_record(struct pd_run *run, const struct perf_event_header *hdr,
			    const __u64 *w)
{
	unsigned int nr_words = (hdr->size - sizeof(*hdr)) / 8, i;
	struct pd_shared *sh = run->sh;
	struct pd_record *r;

	if (nr_words < 2 ||
	    hdr->size != sizeof(*hdr) + 16 + 8 * w[1] + PD_SAMPLE_ID_SIZE) {
		pd_malformed(run, "deferred record of %llu bytes, nr %llu", hdr->size,
			     nr_words < 2 ? 0 : w[1]);
		return;
	}
	if (!w[1] || w[2] != PERF_CONTEXT_USER) {
		pd_malformed(run, "deferred record: nr %llu, ips[0] %#llx", w[1],
			     w[1] ? w[2] : 0);
		return;
	}
	if (run->nr_records == PD_MAX_RECORDS) {
		run->overflow++;
		return;
	}
	r = &run->records[run->nr_records++];
	memset(r, 0, sizeof(*r));
	r->cookie = w[0];
	for (i = 1; i < w[1] && r->nr < PD_MAX_IPS; i++)
		r->ips[r->nr++] = w[2 + i];
	w += 2 + w[1];
	r->pid = (__u32)w[0];
	r->tid = w[0] >> 32;
	r->time = w[1];
	r->id = w[2];

	if (r->id != run->id_track)
		return;
	if (r->nr && r->ips[0] == sh->syscall_ip)
		run->nr_in_syscall++;
	if (r->nr && r->ips[0] >= sh->spin_lo && r->ips[0] <= sh->spin_hi)
		run->nr_in_spin++;
}

/* Parse what the ring buffer holds and give the space back. */
static void pd_drain(struct pd_run *run)
{
	__u64 head = __atomic_load_n(&run->meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = run->meta->data_tail;
	struct perf_event_header hdr;
	static __u64 buf[8192];

	while (tail + sizeof(hdr) <= head) {
		pd_ring_copy(run, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || tail + hdr.size > head) {
			pd_malformed(run, "record of %llu bytes at %llu", hdr.size, tail);
			break;
		}
		pd_ring_copy(run, tail, buf, hdr.size);
		if (hdr.type == PERF_RECORD_SAMPLE)
			pd_parse_sample(run, (void *)buf, buf + 1);
		else if (hdr.type == PD_RECORD_CALLCHAIN_DEFERRED)
			pd_parse_record(run, (void *)buf, buf + 1);
		else if (hdr.type == PERF_RECORD_LOST || hdr.type == PERF_RECORD_LOST_SAMPLES)
			run->lost++;
		tail += hdr.size;
	}
	__atomic_store_n(&run->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* Records of (@tid, @cookie) for @id; *@first gets the first one. */
static unsigned int pd_records_of(const struct pd_run *run, __u64 id, pid_t tid,
				  __u64 cookie, const struct pd_record **first)
{
	unsigned int i, n = 0;

	for (i = 0; i < run->nr_records; i++) {
		if (run->records[i].id != id || run->records[i].tid != tid ||
		    run->records[i].cookie != cookie)
			continue;
		if (!n++ && first)
			*first = &run->records[i];
	}
	return n;
}

/* The records of (@tid, @cookie) for the first tracking event. */
static unsigned int pd_records_for(const struct pd_run *run, pid_t tid, __u64 cookie,
				   const struct pd_record **first)
{
	return pd_records_of(run, run->id_track, tid, cookie, first);
}

/* Deferred samples of the sampling event with (@tid, @cookie). */
static unsigned int pd_samples_for(const struct pd_run *run, pid_t tid, __u64 cookie)
{
	unsigned int i, n = 0;

	for (i = 0; i < run->nr_samples; i++)
		n += run->samples[i].id == run->id_sample && run->samples[i].deferred &&
		     run->samples[i].tid == tid && run->samples[i].cookie == cookie;
	return n;
}

/* Has the run seen all it needs (the mode decides what)? */
static bool pd_enough(struct pd_run *run)
{
	const struct pd_record *r = NULL;

	switch (run->mode) {
	case PD_RUN:
		return run->nr_in_syscall >= 20 && run->nr_in_spin >= 10 &&
		       run->nr_shared >= 3 && run->nr_control >= 10;
	case PD_EXIT_GROUP:
		return run->nr_in_syscall >= 3;
	case PD_SIGKILL:
		/* In the kernel, sampled three times, its walk not done yet. */
		return run->nr_in_syscall >= 2 && run->last_count >= 3 &&
		       !pd_records_for(run, run->pid, run->last_cookie, &r);
	}
	return true;
}

/*
 * Stop before the samples or records overflow their arrays, leaving room for
 * what comes until the child stops; the checks then judge what arrived.
 */
static bool pd_nearly_full(const struct pd_run *run)
{
	return run->nr_samples > PD_MAX_SAMPLES * 3 / 4 ||
	       run->nr_records > PD_MAX_RECORDS * 3 / 4;
}

static void pd_run_init(struct pd_run *run, enum pd_mode mode)
{
	memset(run, 0, sizeof(*run));
	run->fd_track = -1;
	run->fd_track2 = -1;
	run->fd_sample = -1;
	run->fd_control = -1;
	run->go_fd = -1;
	run->mode = mode;
}

static void pd_run_free(struct pd_run *run)
{
	if (run->child > 0) {
		kill(run->child, SIGKILL);
		waitpid(run->child, NULL, 0);
		run->child = 0;
	}
	if (run->meta && run->meta != MAP_FAILED)
		munmap(run->meta, (PD_RING_PAGES + 1) * getpagesize());
	if (run->fd_control >= 0)
		close(run->fd_control);
	if (run->fd_sample >= 0)
		close(run->fd_sample);
	if (run->fd_track2 >= 0)
		close(run->fd_track2);
	if (run->fd_track >= 0)
		close(run->fd_track);
	if (run->go_fd >= 0)
		close(run->go_fd);
	if (run->sh)
		munmap(run->sh, sizeof(*run->sh));
	free(run->samples);
	free(run->records);
	pd_run_init(run, PD_RUN);
}

/* Fork the child, open the events on it, let it run, collect everything. */
static void pd_run(struct __test_metadata *_metadata, struct pd_run *run,
		   __u64 period_ns, __u64 seconds)
{
	size_t page = getpagesize(), len = (PD_RING_PAGES + 1) * page;
	__u64 start = pd_now(), deadline = start + seconds * 1000000000ULL;
	int fds[2], i;

	run->samples = calloc(PD_MAX_SAMPLES, sizeof(*run->samples));
	run->records = calloc(PD_MAX_RECORDS, sizeof(*run->records));
	run->sh = mmap(NULL, sizeof(*run->sh), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(NULL, run->samples);
	ASSERT_NE(NULL, run->records);
	ASSERT_NE(MAP_FAILED, run->sh);
	run->sh->spin = 200000;
	run->sh->iovcnt = run->mode == PD_SIGKILL ? PD_KILL_IOV :
			  run->mode == PD_EXIT_GROUP ? PD_EXIT_IOV : PD_IOV;
	run->sh->iov_len = run->mode == PD_SIGKILL ? PD_KILL_BUF_SIZE : PD_BUF_SIZE;
	run->sh->exit_group = run->mode == PD_EXIT_GROUP;

	ASSERT_EQ(0, pipe2(fds, O_CLOEXEC));
	run->child = fork();
	ASSERT_LE(0, run->child);
	run->pid = run->child;
	if (!run->child) {
		close(fds[1]);
		pd_child(run->sh, fds[0], run->mode == PD_EXIT_GROUP ? PD_EXIT_THREADS : 0);
	}
	close(fds[0]);
	run->go_fd = fds[1];

	run->fd_track = pd_open(PERF_COUNT_SW_DUMMY, 1, PD_ATTR_DEFER_OUTPUT, run->child);
	ASSERT_LE(0, run->fd_track) {
		TH_LOG("dummy event with defer_output: %s", strerror(errno));
	}
	run->fd_sample = pd_open(PERF_COUNT_SW_TASK_CLOCK, period_ns,
				 PD_ATTR_DEFER_CALLCHAIN, run->child);
	ASSERT_LE(0, run->fd_sample) {
		TH_LOG("task-clock with defer_callchain: %s", strerror(errno));
	}
	if (run->mode == PD_RUN) {
		run->fd_control = pd_open(PERF_COUNT_SW_TASK_CLOCK, period_ns, 0, run->child);
		ASSERT_LE(0, run->fd_control) {
			TH_LOG("task-clock: %s", strerror(errno));
		}
		ASSERT_EQ(0, ioctl(run->fd_control, PERF_EVENT_IOC_ID, &run->id_control));
		run->fd_track2 = pd_open(PERF_COUNT_SW_DUMMY, 1, PD_ATTR_DEFER_OUTPUT,
					 run->child);
		ASSERT_LE(0, run->fd_track2);
		ASSERT_EQ(0, ioctl(run->fd_track2, PERF_EVENT_IOC_ID, &run->id_track2));
	}
	ASSERT_EQ(0, ioctl(run->fd_track, PERF_EVENT_IOC_ID, &run->id_track));
	ASSERT_EQ(0, ioctl(run->fd_sample, PERF_EVENT_IOC_ID, &run->id_sample));
	run->meta = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, run->fd_track, 0);
	ASSERT_NE(MAP_FAILED, run->meta);
	run->ring_size = PD_RING_PAGES * page;
	/* One ring buffer (it must exist before the others join it). */
	ASSERT_EQ(0, ioctl(run->fd_sample, PERF_EVENT_IOC_SET_OUTPUT, run->fd_track));
	if (run->fd_control >= 0)
		ASSERT_EQ(0, ioctl(run->fd_control, PERF_EVENT_IOC_SET_OUTPUT, run->fd_track));
	if (run->fd_track2 >= 0)
		ASSERT_EQ(0, ioctl(run->fd_track2, PERF_EVENT_IOC_SET_OUTPUT, run->fd_track));
	/* Sample the chain, not the child's setup (its threads, its buffer). */
	while (!__atomic_load_n(&run->sh->ready, __ATOMIC_ACQUIRE) && pd_now() < deadline) {
		if (waitpid(run->child, &run->status, WNOHANG) == run->child) {
			run->child = 0;
			break;
		}
		usleep(1000);
	}
	ASSERT_EQ(1, run->sh->ready) {
		TH_LOG("the child did not get ready (wait status %#x)", run->status);
	}
	start = pd_now();
	deadline = start + seconds * 1000000000ULL;
	/*
	 * Then enable the tracking event first: no request is made before
	 * its record can be written, and no record goes without its samples.
	 */
	ASSERT_EQ(0, ioctl(run->fd_track, PERF_EVENT_IOC_ENABLE, 0));
	if (run->fd_track2 >= 0)
		ASSERT_EQ(0, ioctl(run->fd_track2, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(run->fd_sample, PERF_EVENT_IOC_ENABLE, 0));
	if (run->fd_control >= 0)
		ASSERT_EQ(0, ioctl(run->fd_control, PERF_EVENT_IOC_ENABLE, 0));

	ASSERT_EQ(1, write(run->go_fd, "g", 1));
	for (i = 0; pd_now() < deadline; i++) {
		/* The SIGKILL test must act within the stay it saw. */
		usleep(run->mode == PD_SIGKILL ? 1000 : 10000);
		pd_drain(run);
		if (waitpid(run->child, &run->status, WNOHANG) == run->child) {
			run->child = 0;
			break;
		}
		if (pd_nearly_full(run)) {
			TH_LOG("stopped with the buffers nearly full");
			break;
		}
		if (i < 20 || !pd_enough(run))
			continue;
		if (run->mode == PD_SIGKILL) {
			run->kill_cookie = run->last_cookie;
			run->kill_time = pd_now();
			kill(run->child, SIGKILL);
		}
		break;
	}
	__atomic_store_n(&run->sh->stop, 1, __ATOMIC_RELEASE);
	if (run->child) {
		while (waitpid(run->child, &run->status, 0) < 0 && errno == EINTR)
			;
		run->child = 0;
	}
	pd_drain(run);
	TH_LOG("%u samples, %u records (%u in the system call, %u in user mode)",
	       run->nr_samples, run->nr_records, run->nr_in_syscall, run->nr_in_spin);
	TH_LOG("%u samples shared a cookie, %u control samples, %lu loops, %llu ms",
	       run->nr_shared, run->nr_control, run->sh->loops,
	       (pd_now() - start) / 1000000);
}

/* Do @nr user frames match the user ip @ip and then the child's own walk? */
static int pd_frames_mismatch(const struct pd_shared *sh, const __u64 *ips,
			      unsigned int nr, __u64 ip)
{
	unsigned int i;

	if (nr < 1 + PD_MIN_FRAMES)
		return 100 + nr;
	if (ips[0] != ip)
		return 1;
	for (i = 0; i + 1 < nr && i < sh->nr_ref; i++)
		if (ips[i + 1] != sh->ref[i])
			return i + 2;
	return 0;
}

/* The child's own walk from pd_c() holds pd_b, pd_a, pd_loop, then more. */
static void pd_check_ref(struct __test_metadata *_metadata, const struct pd_shared *sh)
{
	ASSERT_LE(PD_MIN_FRAMES, sh->nr_ref);
	EXPECT_TRUE(pd_ip_in(sh->ref[0], pd_b));
	EXPECT_TRUE(pd_ip_in(sh->ref[1], pd_a));
	EXPECT_TRUE(pd_ip_in(sh->ref[2], pd_loop));
	EXPECT_NE(0, sh->syscall_ip);
	EXPECT_TRUE(pd_ip_in(sh->syscall_ip, pd_c));
	EXPECT_TRUE(pd_ip_in(sh->spin_lo, pd_c));
	EXPECT_TRUE(pd_ip_in(sh->spin_hi, pd_c));
}

static void pd_log_frames(struct __test_metadata *_metadata, const char *what,
			  const __u64 *ips, unsigned int nr, const struct pd_shared *sh)
{
	TH_LOG("%s (%u): %#llx %#llx %#llx %#llx %#llx; expected %#lx %#lx %#lx %#lx",
	       what, nr, ips[0], ips[1], ips[2], ips[3], ips[4], sh->syscall_ip,
	       sh->ref[0], sh->ref[1], sh->ref[2]);
}

/*
 * Every deferred sample of the child has exactly one record with its cookie
 * and tid, every record at least one sample; cookies are (counter << 32) |
 * (cpu + 1) with both halves non-zero.
 */
static void pd_check_pairs(struct __test_metadata *_metadata, const struct pd_run *run,
			   pid_t child)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int i, n, nr_deferred = 0, late = 0;
	const struct pd_record *r = NULL;
	const struct pd_sample *s;

	EXPECT_EQ(0, run->lost);
	EXPECT_EQ(0, run->overflow);
	for (i = 0; i < run->nr_samples; i++) {
		s = &run->samples[i];
		if (s->id != run->id_sample || !s->deferred)
			continue;
		nr_deferred++;
		EXPECT_EQ(child, s->tid);
		n = pd_records_for(run, s->tid, s->cookie, &r);
		/* Taken on the way out, after the callback wrote the record. */
		late += n && s->time > r->time;
		EXPECT_EQ(1, n) {
			TH_LOG("sample %u at %llu (%s mode): %u records with cookie %#llx",
			       i, s->time, s->kernel ? "kernel" : "user", n, s->cookie);
		}
		EXPECT_NE(0, (__u32)s->cookie);
		EXPECT_GE(cpus, (__u32)s->cookie);
		EXPECT_NE(0, s->cookie >> 32);
	}
	EXPECT_LT(0, nr_deferred);
	TH_LOG("%u deferred samples, %u of them after their record", nr_deferred, late);
	for (i = 0; i < run->nr_records; i++) {
		r = &run->records[i];
		EXPECT_LT(0, pd_samples_for(run, r->tid, r->cookie)) {
			TH_LOG("record %u, cookie %#llx: no sample", i, r->cookie);
		}
	}
}

FIXTURE(deferred) {
	struct pd_run *run;
	pid_t child;
};

FIXTURE_SETUP(deferred)
{
	self->run = malloc(sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	pd_run_init(self->run, PD_RUN);
	pd_run(_metadata, self->run, 1000000, 10);
	self->child = self->run->pid;
	EXPECT_EQ(0, self->run->malformed) {
		TH_LOG("%u malformed records, the first: %s", self->run->malformed,
		       self->run->why);
	}
	ASSERT_TRUE(WIFEXITED(self->run->status));
	ASSERT_EQ(0, WEXITSTATUS(self->run->status));
	pd_check_ref(_metadata, self->run->sh);
}

FIXTURE_TEARDOWN(deferred)
{
	pd_run_free(self->run);
	free(self->run);
}

/*
 * Each record: header, cookie, nr, ips[nr] and the sample_id; ips[0] is
 * PERF_CONTEXT_USER; the sample_id names the child and the tracking event.
 */
TEST_F(deferred, record_layout)
{
	const struct pd_record *r;
	unsigned int i;

	/* Sizes were checked while parsing. */
	EXPECT_EQ(0, self->run->malformed);
	ASSERT_LE(20, self->run->nr_records);
	for (i = 0; i < self->run->nr_records; i++) {
		r = &self->run->records[i];
		EXPECT_EQ(self->child, r->pid);
		EXPECT_EQ(self->child, r->tid);
		EXPECT_TRUE(r->id == self->run->id_track || r->id == self->run->id_track2);
		EXPECT_LT(0, r->nr);
	}
}

/* One record per cookie and task, none without a sample. */
TEST_F(deferred, one_record_per_cookie)
{
	pd_check_pairs(_metadata, self->run, self->child);
}

/*
 * All samples of one stay in the kernel share a cookie and come in a row;
 * a later stay never reuses it, so there are as many records as runs of
 * samples. A stay that began with a sample in user mode (a timer interrupt
 * that may fire again before it returns, under emulation) continues in the
 * kernel, but never goes back to user mode with the same cookie.
 */
TEST_F(deferred, one_walk_per_kernel_entry)
{
	const struct pd_shared *sh = self->run->sh;
	const struct pd_run *run = self->run;
	unsigned int i, j, len, n, most = 0, nr_cookies = 0;
	const struct pd_record *r = NULL;
	const struct pd_sample *s, *t;
	bool in_kernel;

	for (i = 0; i < run->nr_samples; i = j) {
		s = &run->samples[i];
		j = i + 1;
		if (s->id != run->id_sample || !s->deferred)
			continue;
		in_kernel = s->kernel;
		/* The run of samples with this cookie (control samples aside). */
		for (len = 1; j < run->nr_samples; j++) {
			t = &run->samples[j];
			if (t->id != run->id_sample)
				continue;
			if (!t->deferred || t->cookie != s->cookie)
				break;
			len++;
			EXPECT_TRUE(t->kernel || (!in_kernel && t->ip == s->ip)) {
				TH_LOG("cookie %#llx: user sample at %llu, ip %#llx",
				       s->cookie, t->time, t->ip);
				TH_LOG("after the %s sample at %llu, ip %#llx",
				       in_kernel ? "kernel" : "user", s->time, s->ip);
			}
			in_kernel |= t->kernel;
		}
		nr_cookies++;
		n = pd_samples_for(run, s->tid, s->cookie);
		EXPECT_EQ(len, n) {
			TH_LOG("cookie %#llx: %u samples in a row, %u in all", s->cookie, len, n);
		}
		/* The most samples one readv() got. */
		if (pd_records_for(run, s->tid, s->cookie, &r) == 1 &&
		    r->nr && r->ips[0] == sh->syscall_ip && len > most)
			most = len;
	}
	EXPECT_LT(1, most);
	for (i = 0, n = 0; i < run->nr_records; i++)
		n += run->records[i].id == run->id_track;
	EXPECT_EQ(nr_cookies, n);
}

/* Each event with defer_output gets its own copy of every record. */
TEST_F(deferred, one_record_per_output_event)
{
	const struct pd_run *run = self->run;
	const struct pd_record *r, *r2 = NULL;
	unsigned int i, n = 0, n2 = 0;

	for (i = 0; i < run->nr_records; i++) {
		r = &run->records[i];
		if (r->id != run->id_track)
			continue;
		n++;
		ASSERT_EQ(1, pd_records_of(run, run->id_track2, r->tid, r->cookie, &r2)) {
			TH_LOG("cookie %#llx", r->cookie);
		}
		ASSERT_EQ(r->nr, r2->nr);
		EXPECT_EQ(0, memcmp(r->ips, r2->ips, r->nr * sizeof(r->ips[0])));
	}
	for (i = 0; i < run->nr_records; i++)
		n2 += run->records[i].id == run->id_track2;
	EXPECT_EQ(n, n2);
	EXPECT_LT(0, n);
}

/*
 * Records of samples in the system call: the ip after pd_c()'s syscall
 * instruction, then pd_b, pd_a, pd_loop and the rest exactly as the child
 * walked its own frame pointers.
 */
TEST_F(deferred, frames_after_system_call)
{
	const struct pd_shared *sh = self->run->sh;
	const struct pd_record *r;
	unsigned int i, n = 0;

	for (i = 0; i < self->run->nr_records; i++) {
		r = &self->run->records[i];
		if (r->ips[0] != sh->syscall_ip)
			continue;
		n++;
		EXPECT_EQ(0, pd_frames_mismatch(sh, r->ips, r->nr, sh->syscall_ip)) {
			pd_log_frames(_metadata, "record", r->ips, r->nr, sh);
		}
	}
	EXPECT_LE(20, n);
}

/*
 * Samples in user mode: the record starts at the sample's ip; inside
 * pd_c()'s loop the frames above are the child's own walk.
 */
TEST_F(deferred, frames_in_user_mode)
{
	const struct pd_shared *sh = self->run->sh;
	const struct pd_sample *s;
	const struct pd_record *r = NULL;
	unsigned int i, n = 0, nr_user = 0;

	for (i = 0; i < self->run->nr_samples; i++) {
		s = &self->run->samples[i];
		if (s->id != self->run->id_sample || !s->deferred || s->kernel)
			continue;
		nr_user++;
		if (pd_records_for(self->run, s->tid, s->cookie, &r) != 1)
			continue;
		EXPECT_EQ(s->ip, r->ips[0]);
		if (s->ip < sh->spin_lo || s->ip > sh->spin_hi)
			continue;
		n++;
		EXPECT_EQ(0, pd_frames_mismatch(sh, r->ips, r->nr, s->ip)) {
			pd_log_frames(_metadata, "record", r->ips, r->nr, sh);
		}
	}
	EXPECT_LE(10, n) {
		TH_LOG("%u user-mode samples, %u in the loop", nr_user, n);
	}
}

/*
 * The control event has no new bit: its samples carry the user stack
 * inline, as before, with the same frames; no USER_DEFERRED anywhere.
 */
TEST_F(deferred, control_event_unchanged)
{
	const struct pd_shared *sh = self->run->sh;
	const struct pd_sample *s;
	unsigned int i, n = 0, nr = 0;

	for (i = 0; i < self->run->nr_samples; i++) {
		s = &self->run->samples[i];
		if (s->id != self->run->id_control)
			continue;
		nr++;
		EXPECT_FALSE(s->deferred);
		EXPECT_LT(0, s->nr_user);
		if (!s->kernel)
			EXPECT_EQ(s->ip, s->user[0]);
		if (!s->nr_user || s->user[0] != sh->syscall_ip)
			continue;
		n++;
		EXPECT_EQ(0, pd_frames_mismatch(sh, s->user, s->nr_user, sh->syscall_ip)) {
			pd_log_frames(_metadata, "control", s->user, s->nr_user, sh);
		}
	}
	EXPECT_LE(10, n) {
		TH_LOG("%u control samples, %u in the system call", nr, n);
	}
}

FIXTURE(exit) {
	struct pd_run *run;
};

FIXTURE_VARIANT(exit) {
	enum pd_mode mode;
};

/* Sampled inside exit_group() before the task is marked exiting. */
FIXTURE_VARIANT_ADD(exit, exit_group) { .mode = PD_EXIT_GROUP };
/* SIGKILLed in a long readv() while its walk is pending. */
FIXTURE_VARIANT_ADD(exit, sigkill) { .mode = PD_SIGKILL };

FIXTURE_SETUP(exit)
{
	self->run = malloc(sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	pd_run_init(self->run, variant->mode);
}

FIXTURE_TEARDOWN(exit)
{
	pd_run_free(self->run);
	free(self->run);
}

/* The record that proves the exit path was taken, or NULL. */
static const struct pd_record *pd_exit_record(const struct pd_run *run, pid_t child)
{
	const struct pd_record *r = NULL;
	unsigned int i;

	if (run->mode == PD_SIGKILL) {
		if (run->kill_cookie)
			pd_records_for(run, child, run->kill_cookie, &r);
		if (r && r->nr && r->ips[0] == run->sh->syscall_ip && r->time > run->kill_time)
			return r;
		return NULL;
	}
	for (i = 0; i < run->nr_records; i++)
		if (run->records[i].nr && run->records[i].ips[0] == run->sh->exit_ip)
			return &run->records[i];
	return NULL;
}

/*
 * The child leaves while a walk is pending; its records still arrive, one
 * per cookie, and the one pending at the exit holds the full chain. A run
 * where no sample fell into the window is repeated (a few times). Samples
 * taken once the task is exiting cannot be deferred: they carry the user
 * stack inline, as without defer_callchain, until the mm is gone.
 */
TEST_F_TIMEOUT(exit, records_for_every_cookie, 60)
{
	struct pd_run *run = self->run;
	const struct pd_record *r = NULL;
	const struct pd_sample *s;
	unsigned int i, n = 0;
	unsigned long ip;
	int attempt;
	pid_t child;

	for (attempt = 0; attempt < 4 && !r; attempt++) {
		if (attempt)
			pd_run_free(run);
		pd_run_init(run, variant->mode);
		pd_run(_metadata, run, variant->mode == PD_EXIT_GROUP ? 100000 : 1000000, 8);
		child = run->pid;
		ASSERT_EQ(0, run->malformed) {
			TH_LOG("%s", run->why);
		}
		if (variant->mode == PD_SIGKILL && run->kill_cookie) {
			ASSERT_TRUE(WIFSIGNALED(run->status));
			ASSERT_EQ(SIGKILL, WTERMSIG(run->status));
			ASSERT_NE(0, run->kill_cookie);
			/* Its record, whenever it came. */
			ASSERT_EQ(1, pd_records_for(run, child, run->kill_cookie, NULL));
		} else if (variant->mode == PD_EXIT_GROUP) {
			ASSERT_TRUE(WIFEXITED(run->status));
			ASSERT_EQ(0, WEXITSTATUS(run->status));
		}
		pd_check_ref(_metadata, run->sh);
		pd_check_pairs(_metadata, run, child);
		r = pd_exit_record(run, child);
		TH_LOG("attempt %d: %s", attempt, r ? "exit path taken" : "missed the window");
		if (variant->mode == PD_SIGKILL && !r)
			TH_LOG("killed %s cookie %#llx at %llu", run->kill_cookie ? "in" : "never",
			       run->kill_cookie, run->kill_time);
	}
	ASSERT_NE(NULL, r);
	ip = variant->mode == PD_SIGKILL ? run->sh->syscall_ip : run->sh->exit_ip;
	EXPECT_EQ(0, pd_frames_mismatch(run->sh, r->ips, r->nr, ip)) {
		pd_log_frames(_metadata, "record", r->ips, r->nr, run->sh);
	}

	for (i = 0; i < run->nr_samples; i++) {
		s = &run->samples[i];
		if (s->id != run->id_sample || s->deferred || !s->nr_user)
			continue;
		n++;
		EXPECT_EQ(0, pd_frames_mismatch(run->sh, s->user, s->nr_user, ip)) {
			pd_log_frames(_metadata, "exiting", s->user, s->nr_user, run->sh);
		}
	}
	TH_LOG("%u samples of the exiting task with an inline user stack", n);
}

/* defer_callchain needs PERF_SAMPLE_CALLCHAIN; with it the bits are accepted. */
TEST(defer_callchain_needs_callchain)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	pd_attr_set(&attr, PD_ATTR_DEFER_CALLCHAIN);
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);

	fd = pd_open(PERF_COUNT_SW_TASK_CLOCK, 1000000, PD_ATTR_DEFER_CALLCHAIN, 0);
	EXPECT_LE(0, fd) {
		TH_LOG("defer_callchain with PERF_SAMPLE_CALLCHAIN: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	fd = pd_open(PERF_COUNT_SW_DUMMY, 1, PD_ATTR_DEFER_OUTPUT, 0);
	EXPECT_LE(0, fd) {
		TH_LOG("defer_output: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
}

/* The bit numbers used here agree with the installed header's sigtrap. */
TEST(attr_flag_bits)
{
	struct perf_event_attr attr;
	__u64 flags;

	memset(&attr, 0, sizeof(attr));
	attr.sigtrap = 1;
	memcpy(&flags, (char *)&attr + PD_ATTR_FLAGS_OFFSET, sizeof(flags));
	EXPECT_EQ(PD_ATTR_SIGTRAP, flags);
	EXPECT_EQ(PD_ATTR_SIGTRAP << 1, PD_ATTR_DEFER_CALLCHAIN);
	EXPECT_EQ(PD_ATTR_SIGTRAP << 2, PD_ATTR_DEFER_OUTPUT);
}

TEST_HARNESS_MAIN
