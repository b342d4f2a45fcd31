// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark driver for the core tables: recurses DEPTH frames deep (frame
 * pointers, so the walks see exactly DEPTH + 2 frames: the leaf's ip, the
 * recursion, main), then issues ITERS "bench" commands of the test module,
 * one system call each (so each is its own entry context), and copies every
 * result line to stdout. The kernel does the timing.
 *
 * Usage: core req CTX DEPTH ITERS REPEAT    CTX: task or nmi; the requests
 *                                           against perf's walk of at most 16
 *                                           frames (table 1 compares with a
 *                                           16-frame stack: DEPTH 12)
 *        core walk DEPTH ITERS REPEAT [SECTION]
 *                                           unwind_user() against perf's walk;
 *                                           with SECTION, the program is built
 *                                           without frame pointers and with
 *                                           SFrame, and the walk uses "exe" (the
 *                                           section the walker found) or that
 *                                           section converted to "v2",
 *                                           "v2pcrel" or "v3", registered with
 *                                           the module's "sframe add" instead;
 *                                           "cold": the executable's, forgotten
 *                                           ("sframe forget") before each
 *                                           command, which times one walk: the
 *                                           first through a new object (probe,
 *                                           check of the section, walk);
 *                                           "ehf" and "ehfcold": the same for
 *                                           the program built with neither
 *                                           frame pointers nor SFrame, walked
 *                                           with its .eh_frame (the PT_GNU_EH_FRAME
 *                                           segment the walker found);
 *                                           "nocache" and "ehfnocache": "exe"
 *                                           and "ehf" with the walker's rule
 *                                           cache off (core.sh turns it off;
 *                                           checked here, as that it is on for
 *                                           the others)
 *        core cookie NCPU DEPTH ITERS       NCPU processes, one per CPU,
 *                                           started together
 *
 * Each run first checks that the module refuses to time with its counting
 * kprobes registered (-EBUSY) and refuses a repeat count of 0 (-EINVAL), then
 * removes the kprobes ("probes 0") and registers one tracer; when every process is done it cancels the tracer and puts the
 * kprobes back ("probes 1").
 *
 * With SECTION, the walking process first prints what describes its text:
 *   CORE-SFRAME SECTION VERSION FLAGS FDES BYTES
 * (for "ehf" and "ehfcold": version and flags 0, the FDEs of .eh_frame_hdr's
 * table and the size of its segment).
 */
#include "bench.h"

#include <stddef.h>
#include <elf.h>
#include "sframe_convert.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

#define USAGE "req task|nmi DEPTH ITERS REPEAT | walk DEPTH ITERS REPEAT " \
	      "[exe|cold|nocache|v2|v2pcrel|v3|ehf|ehfcold|ehfnocache] | " \
	      "cookie NCPU DEPTH ITERS"
#define CONTROL "/sys/kernel/debug/unwind_deferred_test/control"
#define CACHE_PARAM "/sys/module/kernel/parameters/sframe_cache"
#define PERF_FRAMES 16
#define MAX_FRAMES 512

static int ctl;
static char cmd[128];
static char res[4096];

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static long slen(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	return n;
}

/* Append @s, then @v in decimal if @v >= 0, to cmd. */
static void add(const char *s, long v)
{
	char *p = cmd + slen(cmd);
	char num[24];
	int n = 0;

	while (*s)
		*p++ = *s++;
	if (v >= 0) {
		do
			num[n++] = '0' + v % 10;
		while ((v /= 10) > 0);
		while (n)
			*p++ = num[--n];
	}
	*p = '\0';
}

/* Run cmd; the result lines go to stdout. Returns the first number of the result. */
static __attribute__((noinline)) long run(int echo)
{
	long n = slen(cmd), r, v = 0;
	char *p;

	if (sys3(__NR_write, ctl, (long)cmd, n) != n) {
		say(cmd);
		die(": command failed\n");
	}
	r = sys6(__NR_pread64, ctl, (long)res, sizeof(res) - 1, 0, 0, 0);
	if (r <= 0)
		die("cannot read the command's result\n");
	res[r] = '\0';
	if (echo)
		sys3(__NR_write, 1, (long)res, r);
	for (p = res; *p && (*p < '0' || *p > '9'); p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + *p - '0';
	return v;
}

/* Write cmd, which must fail with @err; else die saying @why. */
static void expect(long err, const char *why)
{
	if (sys3(__NR_write, ctl, (long)cmd, slen(cmd)) != err)
		die(why);
}

static void command(const char *s, long v)
{
	cmd[0] = '\0';
	add(s, v);
}

static long mode, iters, repeat, tracer;
static const char *ctx, *section;

/* sframe_convert.h's, for a program without libc; kept loops, not calls. */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}

__attribute__((optimize("no-tree-loop-distribute-patterns")))
void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp <= sp)
		return memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

__attribute__((optimize("no-tree-loop-distribute-patterns")))
void *memset(void *d, int c, size_t n)
{
	unsigned char *dp = d;

	while (n--)
		*dp++ = c;
	return d;
}

extern const Elf64_Ehdr __ehdr_start;
static unsigned char converted[1 << 16];

/*
 * For "ehf" and "ehfcold": the program has no SFrame, and the walker finds
 * its .eh_frame through the PT_GNU_EH_FRAME segment; print that segment's
 * CORE-SFRAME line. The table's FDE count follows the header's 4-byte
 * eh_frame_ptr (ld's encoding, checked).
 */
static void use_eh_frame(const Elf64_Phdr *ph)
{
	const unsigned char *hdr = 0;
	long len = 0;

	for (int i = 0; i < __ehdr_start.e_phnum; i++) {
		if (ph[i].p_type == PT_GNU_SFRAME)
			die("a PT_GNU_SFRAME segment: build the .eh_frame program without -Wa,--gsframe\n");
		if (ph[i].p_type == PT_GNU_EH_FRAME) {
			hdr = (const unsigned char *)ph[i].p_vaddr;
			len = ph[i].p_memsz;
		}
	}
	/* Version 1, eh_frame_ptr sdata4 pc-relative, fde_count udata4. */
	if (!hdr || len < 12 || hdr[0] != 1 || hdr[1] != 0x1b || hdr[2] != 0x03)
		die("no PT_GNU_EH_FRAME segment as ld writes it: link with --eh-frame-hdr\n");
	cmd[0] = '\0';
	add("CORE-SFRAME ", -1);
	add(section, -1);
	add(" ", 0);
	add(" ", 0);
	add(" ", sfc_get32(hdr + 8));
	add(" ", len);
	add("\n", -1);
	sys3(__NR_write, 1, (long)cmd, slen(cmd));
}

/* The walker's rule cache: off for the "nocache" sections, on for the rest. */
static void check_cache(void)
{
	int off = same(section, "nocache") || same(section, "ehfnocache");
	long fd = sys3(__NR_open, (long)CACHE_PARAM, 0, 0);
	char c = 0;

	if (fd < 0 || sys3(__NR_read, fd, (long)&c, 1) != 1)
		die("cannot read " CACHE_PARAM "\n");
	sys3(__NR_close, fd, 0, 0);
	if ((c == 'N') != off)
		die(off ? "the rule cache is on for a nocache section\n" :
			  "the rule cache is off\n");
}

/*
 * Make @section describe this program's text: find its PT_GNU_SFRAME
 * segment and executable PT_LOAD (static, not PIE: addresses as linked),
 * and for anything but "exe" convert the section (binutils 2.40's version 1)
 * and register the copy in place of the exec-time registration. Prints the
 * CORE-SFRAME line of the section the walks will use.
 */
static void use_section(void)
{
	const Elf64_Phdr *ph = (const void *)((const char *)&__ehdr_start +
					      __ehdr_start.e_phoff);
	unsigned long sec = 0, sec_end = 0, text = 0, text_end = 0;
	const unsigned char *used;
	enum sfc_version to;
	long len;

	check_cache();
	if (same(section, "ehf") || same(section, "ehfcold") ||
	    same(section, "ehfnocache")) {
		use_eh_frame(ph);
		return;
	}
	for (int i = 0; i < __ehdr_start.e_phnum; i++) {
		if (ph[i].p_type == PT_GNU_SFRAME) {
			sec = ph[i].p_vaddr;
			sec_end = sec + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			text = ph[i].p_vaddr;
			text_end = text + ph[i].p_memsz;
		}
	}
	if (!sec || !text)
		die("no PT_GNU_SFRAME segment: build with -Wa,--gsframe\n");
	used = (const unsigned char *)sec;
	len = sec_end - sec;
	if (!same(section, "exe") && !same(section, "cold") &&
	    !same(section, "nocache")) {
		if (same(section, "v2"))
			to = SFC_V2;
		else if (same(section, "v2pcrel"))
			to = SFC_V2_PCREL;
		else
			to = SFC_V3;
		len = sfc_convert(used, len, sec, converted, sizeof(converted),
				  (unsigned long)converted, to);
		if (len < 0)
			die("cannot convert the section: not version 1, or too large\n");
		used = converted;
		command("sframe clear", -1);
		run(0);
		command("sframe add ", (long)converted);
		add(" ", (long)converted + len);
		add(" ", text);
		add(" ", text_end);
		run(0);
	}
	cmd[0] = '\0';
	add("CORE-SFRAME ", -1);
	add(section, -1);
	add(" ", used[SFC_HDR_VERSION]);
	add(" ", used[SFC_HDR_FLAGS]);
	add(" ", sfc_get32(used + SFC_HDR_NUM_FDES));
	add(" ", len);
	add("\n", -1);
	sys3(__NR_write, 1, (long)cmd, slen(cmd));
}

static __attribute__((noinline)) void leaf(void)
{
	for (long i = 0; i < iters; i++) {
		cmd[0] = '\0';
		if (mode == 'r') {
			add("bench req ", -1);
			add(ctx, -1);
			add(" ", tracer);
			add(" ", repeat);
			add(" ", PERF_FRAMES);
		} else if (mode == 'w' && section &&
			   (same(section, "cold") || same(section, "ehfcold"))) {
			command("sframe forget", -1);
			run(0);
			command("bench walk 1 ", MAX_FRAMES);
		} else if (mode == 'w') {
			add("bench walk ", repeat);
			add(" ", MAX_FRAMES);
		} else {
			add("bench cookie ", tracer);
		}
		run(1);
	}
}

static __attribute__((noinline)) void recurse(long depth)
{
	if (depth <= 1)
		leaf();
	else
		recurse(depth - 1);
	asm volatile("" ::: "memory");	/* no tail call */
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	long depth, ncpu = 1, pid, last = 1;
	int fds[2];
	char c;

	if (same(m, "req") && argc == 6) {
		mode = 'r';
		ctx = argv[2];
		if (!same(ctx, "task") && !same(ctx, "nmi"))
			arg(0, argv, 1, USAGE);
		depth = arg(argc, argv, 3, USAGE);
		iters = arg(argc, argv, 4, USAGE);
		repeat = arg(argc, argv, 5, USAGE);
	} else if (same(m, "walk") && (argc == 5 || argc == 6)) {
		mode = 'w';
		depth = arg(argc, argv, 2, USAGE);
		iters = arg(argc, argv, 3, USAGE);
		repeat = arg(argc, argv, 4, USAGE);
		section = argc == 6 ? argv[5] : 0;
		if (section && !same(section, "exe") && !same(section, "cold") &&
		    !same(section, "nocache") && !same(section, "v2") &&
		    !same(section, "v2pcrel") && !same(section, "v3") &&
		    !same(section, "ehf") && !same(section, "ehfcold") &&
		    !same(section, "ehfnocache"))
			arg(0, argv, 1, USAGE);
	} else if (same(m, "cookie") && argc == 5) {
		mode = 'c';
		ncpu = arg(argc, argv, 2, USAGE);
		depth = arg(argc, argv, 3, USAGE);
		iters = arg(argc, argv, 4, USAGE);
	} else {
		arg(0, argv, 1, USAGE);	/* prints the usage and exits */
		return 2;
	}
	if (depth + 2 > MAX_FRAMES || ncpu > 64)
		die("DEPTH or NCPU too large\n");

	ctl = sys3(__NR_open, (long)CONTROL, 02 /* O_RDWR */, 0);
	if (ctl < 0)
		die("cannot open " CONTROL "\n");
	/* The module refuses to time anything with its kprobes in the way. */
	command("bench cookie ", 0);
	expect(-16 /* EBUSY */, "a bench command ran with the counting kprobes registered\n");
	command("probes ", 0);
	run(0);
	command("register", -1);
	tracer = run(0);
	command("bench walk 0 8", -1);	/* REPEAT 0 */
	expect(-22 /* EINVAL */, "a bench command took a repeat count of 0\n");

	if (sys3(__NR_pipe, (long)fds, 0, 0))
		die("pipe failed\n");
	for (long cpu = 0; cpu < ncpu; cpu++) {
		unsigned long mask = 1UL << cpu;

		pid = sys3(__NR_fork, 0, 0, 0);
		if (pid < 0)
			die("fork failed\n");
		if (pid)
			continue;
		if (sys3(__NR_sched_setaffinity, 0, sizeof(mask), (long)&mask))
			die("cannot run on that CPU\n");
		sys3(__NR_close, fds[1], 0, 0);
		sys3(__NR_read, fds[0], (long)&c, 1);	/* EOF: all are ready */
		ctl = sys3(__NR_open, (long)CONTROL, 02, 0);
		if (ctl < 0)
			die("cannot open " CONTROL "\n");
		if (section)
			use_section();
		recurse(depth);
		return 0;
	}
	sys3(__NR_close, fds[1], 0, 0);
	for (long i = 0; i < ncpu; i++) {
		int status = 0;

		if (sys6(__NR_wait4, -1, (long)&status, 0, 0, 0, 0) < 0 || status)
			last = 0;
	}
	command("cancel ", tracer);
	run(0);
	command("probes ", 1);
	run(0);
	if (!last)
		die("a benchmark process failed\n");
	return 0;
}
