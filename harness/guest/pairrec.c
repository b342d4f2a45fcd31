// SPDX-License-Identifier: GPL-2.0
/*
 * pairrec: record one perf event whose samples carry both a deferred user
 * callchain request (perf_event_attr::defer_callchain) and a copy of the
 * user registers and stack (what perf --call-graph dwarf unwinds), so that
 * the same sample can be unwound both ways. Debian's perf 7.3 cannot ask
 * one event for both; it can read what this writes:
 *
 *   PREFIX.defer  the samples with their callchain (the kernel part and
 *                 the deferred marker and cookie) and the deferred
 *                 callchain records: perf script stitches the user part;
 *   PREFIX.dwarf  the same samples with the kernel part of the callchain
 *                 only, and the user registers and stack: perf script
 *                 unwinds the user part from the stack copy (libdw).
 *
 * Both are perf.data in pipe format: perf script -i - < FILE. A sample is
 * the same sample in both files: the same tid and time.
 *
 * The command runs on CPU 0 with its children (the event is per task,
 * inherited, on CPU 0); the recorder on the last CPU. The event is
 * cpu-clock, in frequency mode, enabled at the command's exec.
 *
 * Usage: pairrec [-F FREQ] [-s STACK] [-m PAGES] -o PREFIX -- COMMAND [ARG]...
 *   FREQ   samples per second (default 500)
 *   STACK  bytes of user stack per sample, a multiple of 8 below 65536
 *          (default 8192)
 *   PAGES  ring buffer pages, a power of 2 (default 4096)
 * Exit status: the command's, or 2 for a usage error, 1 for a failure of
 * the recorder (said on stderr). The numbers of samples, deferred
 * callchains and lost records go to stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>

#define SAMPLE_BASE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define SAMPLE_DWARF	(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* The x86_64 user registers perf's dwarf mode asks for: all but ds-gs. */
#define REGS_MASK	(((1ULL << PERF_REG_X86_64_MAX) - 1) & \
			 ~(0xfULL << PERF_REG_X86_DS))
#define PIPE_MAGIC	0x32454c4946524550ULL	/* "PERFILE2" */
#define RECORD_HEADER_ATTR	64		/* PERF_RECORD_HEADER_ATTR */

struct out {
	FILE *f;
	const char *path;
};

static struct out defer_out, dwarf_out;
static unsigned long n_samples, n_deferred, n_lost, n_other;

static void fail(const char *what)
{
	fprintf(stderr, "pairrec: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(struct out *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n)
		fail(o->path);
}

static void open_out(struct out *o, const char *prefix, const char *suffix,
		     struct perf_event_attr *attr)
{
	uint64_t pipe_header[2] = { PIPE_MAGIC, 16 };
	struct perf_event_header h = {
		.type = RECORD_HEADER_ATTR,
		.size = sizeof(h) + attr->size,
	};
	char *path;

	if (asprintf(&path, "%s.%s", prefix, suffix) < 0)
		fail("asprintf");
	o->path = path;
	o->f = fopen(path, "w");
	if (!o->f)
		fail(path);
	put(o, pipe_header, sizeof(pipe_header));
	put(o, &h, sizeof(h));
	put(o, attr, attr->size);
}

/* The number of u64 words a sample's user registers take. */
static size_t regs_words(uint64_t abi)
{
	return abi ? 1 + __builtin_popcountll(REGS_MASK) : 1;
}

/*
 * One sample, as laid out by SAMPLE_BASE | SAMPLE_DWARF: ip, pid/tid, time,
 * cpu, period, callchain (nr, ips), regs (abi, regs), stack (size, data,
 * dyn_size). Written to each file with what that file's attr says.
 */
static void sample(const struct perf_event_header *h, const uint64_t *w)
{
	size_t words = (h->size - sizeof(*h)) / 8, nr, k, fixed = 5, end, user;
	struct perf_event_header hd = *h;
	uint64_t size;

	if (words < fixed + 1)
		goto bad;
	nr = w[fixed];
	if (nr > words - fixed - 1)
		goto bad;
	end = fixed + 1 + nr;		/* the first word after the callchain */
	/* The callchain's user part starts at its first user context. */
	for (user = fixed + 1; user < end; user++)
		if (w[user] == PERF_CONTEXT_USER ||
		    w[user] == PERF_CONTEXT_USER_DEFERRED)
			break;
	if (end >= words)
		goto bad;
	k = end + regs_words(w[end]);
	if (k >= words)
		goto bad;
	size = w[k];
	if (size % 8 || (size && words - k != size / 8 + 2) ||
	    (!size && k + 1 != words))
		goto bad;

	/* .defer: up to the end of the callchain. */
	hd.size = sizeof(hd) + end * 8;
	put(&defer_out, &hd, sizeof(hd));
	put(&defer_out, w, end * 8);

	/* .dwarf: the kernel part of the callchain, the registers, the stack. */
	hd.size = h->size - (end - user) * 8;
	put(&dwarf_out, &hd, sizeof(hd));
	put(&dwarf_out, w, fixed * 8);
	nr = user - fixed - 1;
	put(&dwarf_out, &nr, 8);
	put(&dwarf_out, w + fixed + 1, nr * 8);
	put(&dwarf_out, w + end, (words - end) * 8);
	n_samples++;
	return;
bad:
	fprintf(stderr, "pairrec: a sample of %u bytes does not parse\n", h->size);
	exit(1);
}

static void record(const struct perf_event_header *h, const void *body)
{
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		sample(h, body);
		return;
	case PERF_RECORD_CALLCHAIN_DEFERRED:
		n_deferred++;
		put(&defer_out, h, sizeof(*h));
		put(&defer_out, body, h->size - sizeof(*h));
		return;
	case PERF_RECORD_LOST:
		n_lost += ((const uint64_t *)body)[1];
		break;
	default:
		n_other++;
	}
	put(&defer_out, h, sizeof(*h));
	put(&defer_out, body, h->size - sizeof(*h));
	put(&dwarf_out, h, sizeof(*h));
	put(&dwarf_out, body, h->size - sizeof(*h));
}

/* Read every record the ring buffer holds; return how many. */
static unsigned long drain(struct perf_event_mmap_page *pg, size_t page)
{
	unsigned char *data = (unsigned char *)pg + (pg->data_offset ?: page);
	uint64_t size = pg->data_size, head, tail;
	static unsigned char *rec;
	static size_t rec_size;
	unsigned long n = 0;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t off = tail % size, first;

		first = size - off < sizeof(h) ? size - off : sizeof(h);
		memcpy(&h, data + off, first);
		memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h) || tail + h.size > head) {
			errno = EPROTO;
			fail("ring buffer");
		}
		if (h.size > rec_size) {
			rec_size = h.size;
			rec = realloc(rec, rec_size);
			if (!rec)
				fail("realloc");
		}
		first = size - off < h.size ? size - off : h.size;
		memcpy(rec, data + off, first);
		memcpy(rec + first, data, h.size - first);
		record(&h, rec + sizeof(h));
		tail += h.size;
		n++;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		fail("sched_setaffinity");
}

static void usage(void)
{
	fprintf(stderr, "usage: pairrec [-F FREQ] [-s STACK] [-m PAGES] -o PREFIX -- COMMAND [ARG]...\n");
	exit(2);
}

static unsigned long number(const char *s, unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v < min || v > max) {
		fprintf(stderr, "pairrec: '%s' is not a number from %lu to %lu\n", s, min, max);
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long freq = 500, stack = 8192, pages = 4096;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	const char *prefix = NULL;
	int go[2], fd, opt, status, ncpu;
	size_t page = sysconf(_SC_PAGESIZE);
	pid_t child;
	char c;

	while ((opt = getopt(argc, argv, "+F:s:m:o:")) != -1) {
		switch (opt) {
		case 'F':
			freq = number(optarg, 1, 100000);
			break;
		case 's':
			stack = number(optarg, 8, 65528);
			if (stack % 8)
				usage();
			break;
		case 'm':
			pages = number(optarg, 1, 1 << 16);
			if (pages & (pages - 1))
				usage();
			break;
		case 'o':
			prefix = optarg;
			break;
		default:
			usage();
		}
	}
	if (!prefix || optind >= argc)
		usage();

	if (pipe(go))
		fail("pipe");
	child = fork();
	if (child < 0)
		fail("fork");
	if (!child) {
		close(go[1]);
		/* Exec only once the event is open, or not at all. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "pairrec: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	pin(child, 0);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 1)
		pin(0, ncpu - 1);

	attr = (struct perf_event_attr) {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = freq,
		.sample_type = SAMPLE_BASE | SAMPLE_DWARF,
		.sample_regs_user = REGS_MASK,
		.sample_stack_user = stack,
		/* Counting from the command's exec, in its children too. */
		.disabled = 1, .enable_on_exec = 1, .inherit = 1,
		/* What perf script needs to name the frames' objects. */
		.mmap = 1, .mmap2 = 1, .comm = 1, .comm_exec = 1, .task = 1,
		.sample_id_all = 1,
		.exclude_guest = 1,
		.defer_callchain = 1, .defer_output = 1,
		.watermark = 1,
		.wakeup_watermark = pages * page / 4,
	};
	fd = syscall(SYS_perf_event_open, &attr, child, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		kill(child, SIGKILL);
		fail("perf_event_open (cpu-clock, defer_callchain and a stack copy)");
	}
	pg = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		kill(child, SIGKILL);
		fail("mmap of the ring buffer");
	}

	/* Each file's attr says what that file's samples hold. */
	attr.sample_type = SAMPLE_BASE;
	attr.sample_regs_user = 0;
	attr.sample_stack_user = 0;
	open_out(&defer_out, prefix, "defer", &attr);
	attr.sample_type = SAMPLE_BASE | SAMPLE_DWARF;
	attr.sample_regs_user = REGS_MASK;
	attr.sample_stack_user = stack;
	attr.defer_callchain = 0;
	attr.defer_output = 0;
	open_out(&dwarf_out, prefix, "dwarf", &attr);

	if (write(go[1], "x", 1) != 1)
		fail("starting the command");
	close(go[1]);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		pid_t w;

		drain(pg, page);
		w = waitpid(child, &status, WNOHANG);
		if (w < 0)
			fail("waitpid");
		if (w == child)
			break;
		if (poll(&p, 1, 100) < 0 && errno != EINTR)
			fail("poll");
	}
	/* The inherited events of children that exited wrote here too. */
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(pg, page);
	if (fclose(defer_out.f) || fclose(dwarf_out.f))
		fail("closing the output");
	fprintf(stderr, "pairrec: %lu samples, %lu deferred callchains, %lu lost, %lu other records\n",
		n_samples, n_deferred, n_lost, n_other);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
