// SPDX-License-Identifier: GPL-2.0
/*
 * Count what a perf.data file spends on user stacks, for `make bench`.
 * Reads the file header and the event attributes (sample_type and friends per
 * event), then walks every record of the data section and prints one line:
 *
 *   samples N sample_bytes B deferred N deferred_bytes B user_bytes B
 *   user_frames N no_user N unmatched N lost N file_bytes B
 *
 * sample_bytes and deferred_bytes are the sizes of the PERF_RECORD_SAMPLE and
 * PERF_RECORD_CALLCHAIN_DEFERRED records, headers included. user_bytes is what
 * the user stack costs: the user part of each sample's callchain (from its
 * PERF_CONTEXT_USER or PERF_CONTEXT_USER_DEFERRED marker to the end, marker
 * included), the user registers and the user stack dump (with their size
 * words), and the ips of the deferred records. user_frames counts the user
 * addresses per sample, a deferred sample getting those of its record.
 * no_user counts samples with no user stack at all, unmatched the deferred
 * samples whose cookie has no record.
 *
 * Native byte order only (the file is written and read on x86_64).
 * Usage: perfdata FILE
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC_LOST		2
#define REC_SAMPLE		9
#define REC_LOST_SAMPLES	13
#define REC_CALLCHAIN_DEFERRED	22

#define S_IP		(1ULL << 0)
#define S_TID		(1ULL << 1)
#define S_TIME		(1ULL << 2)
#define S_ADDR		(1ULL << 3)
#define S_READ		(1ULL << 4)
#define S_CALLCHAIN	(1ULL << 5)
#define S_ID		(1ULL << 6)
#define S_CPU		(1ULL << 7)
#define S_PERIOD	(1ULL << 8)
#define S_STREAM_ID	(1ULL << 9)
#define S_RAW		(1ULL << 10)
#define S_BRANCH_STACK	(1ULL << 11)
#define S_REGS_USER	(1ULL << 12)
#define S_STACK_USER	(1ULL << 13)
#define S_IDENTIFIER	(1ULL << 16)

#define R_TOTAL_TIME_ENABLED	(1ULL << 0)
#define R_TOTAL_TIME_RUNNING	(1ULL << 1)
#define R_ID			(1ULL << 2)
#define R_GROUP			(1ULL << 3)
#define R_LOST			(1ULL << 4)

#define CTX_USER		((uint64_t)-512)
#define CTX_USER_DEFERRED	((uint64_t)-640)
#define CTX_MAX			((uint64_t)-4095)

/* Offsets in struct perf_event_attr (stable ABI). */
#define A_SAMPLE_TYPE		24
#define A_READ_FORMAT		32
#define A_SAMPLE_REGS_USER	80

struct attr {
	uint64_t sample_type, read_format, regs_user;
	uint64_t *ids;
	uint64_t nr_ids;
};

static struct attr *attrs;
static uint64_t nr_attrs;
static unsigned char *data;	/* the whole file */
static uint64_t size;

static void fail(const char *what)
{
	fprintf(stderr, "perfdata: %s\n", what);
	exit(1);
}

static uint64_t u64_at(uint64_t off)
{
	uint64_t v;

	if (off + 8 > size)
		fail("truncated file");
	memcpy(&v, data + off, 8);
	return v;
}

static void read_attrs(void)
{
	/* Each entry is a struct perf_event_attr, then the section of its ids. */
	uint64_t entry = u64_at(16), off = u64_at(24), len = u64_at(32);
	uint64_t attr_size = entry - 16;

	if (entry < A_SAMPLE_REGS_USER + 8 + 16)
		fail("attr too small");
	nr_attrs = len / entry;
	if (!nr_attrs)
		fail("no event attributes");
	attrs = calloc(nr_attrs, sizeof(*attrs));
	for (uint64_t i = 0; i < nr_attrs; i++, off += entry) {
		struct attr *a = &attrs[i];
		uint64_t ids = u64_at(off + attr_size);

		a->sample_type = u64_at(off + A_SAMPLE_TYPE);
		a->read_format = u64_at(off + A_READ_FORMAT);
		a->regs_user = u64_at(off + A_SAMPLE_REGS_USER);
		a->nr_ids = u64_at(off + attr_size + 8) / 8;
		a->ids = calloc(a->nr_ids + 1, 8);
		for (uint64_t j = 0; j < a->nr_ids; j++)
			a->ids[j] = u64_at(ids + 8 * j);
	}
}

/* The attr of a sample: by its identifier when several events differ. */
static struct attr *sample_attr(uint64_t rec)
{
	uint64_t id;

	for (uint64_t i = 1; i < nr_attrs; i++)
		if (attrs[i].sample_type != attrs[0].sample_type)
			goto by_id;
	return &attrs[0];
by_id:
	if (!(attrs[0].sample_type & S_IDENTIFIER))
		fail("events differ in sample_type and carry no identifier");
	id = u64_at(rec + 8);
	for (uint64_t i = 0; i < nr_attrs; i++)
		for (uint64_t j = 0; j < attrs[i].nr_ids; j++)
			if (attrs[i].ids[j] == id)
				return &attrs[i];
	fail("sample with an unknown id");
	return NULL;
}

struct cookie {
	uint64_t cookie, frames;
};

static struct cookie *cookies;
static uint64_t nr_cookies;

static int cmp_cookie(const void *a, const void *b)
{
	const struct cookie *x = a, *y = b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

struct totals {
	uint64_t samples, sample_bytes, deferred, deferred_bytes, user_bytes;
	uint64_t user_frames, no_user, unmatched, lost;
};

/* The size of a PERF_SAMPLE_READ value at p. */
static uint64_t read_bytes(uint64_t fmt, uint64_t p)
{
	uint64_t times = !!(fmt & R_TOTAL_TIME_ENABLED) + !!(fmt & R_TOTAL_TIME_RUNNING);
	uint64_t per = 1 + !!(fmt & R_ID) + !!(fmt & R_LOST);

	if (fmt & R_GROUP)
		return 8 * (1 + times + per * u64_at(p));
	return 8 * (times + per);
}

/* One sample: its user stack bytes and frames, walking sample_type in order. */
static void sample(uint64_t rec, uint64_t end, struct totals *t)
{
	struct attr *a = sample_attr(rec);
	uint64_t st = a->sample_type, p = rec + 8, user = 0, frames = 0;
	int has_user = 0;

	p += 8 * (!!(st & S_IDENTIFIER) + !!(st & S_IP) + !!(st & S_TID) +
		  !!(st & S_TIME) + !!(st & S_ADDR) + !!(st & S_ID) +
		  !!(st & S_STREAM_ID) + !!(st & S_CPU) + !!(st & S_PERIOD));
	if (st & S_READ)
		p += read_bytes(a->read_format, p);
	if (st & S_CALLCHAIN) {
		uint64_t nr = u64_at(p), from = nr;

		for (uint64_t i = 0; i < nr; i++) {
			uint64_t ip = u64_at(p + 8 + 8 * i);

			if (ip == CTX_USER || ip == CTX_USER_DEFERRED) {
				from = i;
				has_user = 1;
			}
			if (from < nr && i > from && ip < CTX_MAX)
				frames++;
			if (ip == CTX_USER_DEFERRED && i + 1 < nr) {
				struct cookie key = { .cookie = u64_at(p + 16 + 8 * i) }, *c;

				c = bsearch(&key, cookies, nr_cookies, sizeof(key), cmp_cookie);
				if (c)
					frames += c->frames;
				else
					t->unmatched++;
				i++;	/* the cookie is no frame */
			}
		}
		user += 8 * (nr - from);
		p += 8 + 8 * nr;
	}
	if (st & S_RAW)
		p += (4 + (u64_at(p) & 0xffffffff) + 7) & ~7ULL;
	if (st & S_BRANCH_STACK)
		fail("branch stacks are not handled");
	if (st & S_REGS_USER) {
		uint64_t abi = u64_at(p), n = abi ? __builtin_popcountll(a->regs_user) : 0;

		user += 8 + 8 * n;
		p += 8 + 8 * n;
	}
	if (st & S_STACK_USER) {
		uint64_t sz = u64_at(p);

		user += 8 + sz + (sz ? 8 : 0);
		has_user |= sz > 0;
		p += 8 + sz + (sz ? 8 : 0);
	}
	if (p > end)
		fail("sample longer than its record");
	t->samples++;
	t->user_bytes += user;
	t->user_frames += frames;
	t->no_user += !has_user;
}

/* Pass 1 collects the deferred records' cookies, pass 2 counts everything. */
static void walk(int pass, struct totals *t)
{
	uint64_t off = u64_at(40), end = off + u64_at(48);

	if (end > size)
		fail("data section beyond the end of the file");
	while (off + 8 <= end) {
		uint32_t type;
		uint16_t len;

		memcpy(&type, data + off, 4);
		memcpy(&len, data + off + 6, 2);
		if (len < 8 || off + len > end)
			fail("bad record size");
		if (type == REC_CALLCHAIN_DEFERRED) {
			uint64_t nr = u64_at(off + 16);

			if (pass == 1) {
				/* Records of the first kernels began with PERF_CONTEXT_USER. */
				int marker = nr && u64_at(off + 24) == CTX_USER;

				cookies[nr_cookies].cookie = u64_at(off + 8);
				cookies[nr_cookies++].frames = nr - marker;
			} else {
				t->deferred++;
				t->deferred_bytes += len;
				t->user_bytes += 8 * nr;
			}
		} else if (pass == 2 && type == REC_SAMPLE) {
			t->sample_bytes += len;
			sample(off, off + len, t);
		} else if (pass == 2 && type == REC_LOST) {
			t->lost += u64_at(off + 16);
		} else if (pass == 2 && type == REC_LOST_SAMPLES) {
			t->lost += u64_at(off + 8);
		}
		off += len;
	}
}

int main(int argc, char **argv)
{
	struct totals t = { 0 };
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: perfdata FILE\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(size = ftell(f)) < 0) {
		fprintf(stderr, "perfdata: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	data = malloc(size + 1);
	rewind(f);
	if (!data || fread(data, 1, size, f) != size)
		fail("cannot read the file");
	if (size < 104 || memcmp(data, "PERFILE2", 8))
		fail("not a perf.data file (or written in pipe mode)");
	read_attrs();
	cookies = calloc(size / 24 + 1, sizeof(*cookies));
	walk(1, &t);
	qsort(cookies, nr_cookies, sizeof(*cookies), cmp_cookie);
	walk(2, &t);
	printf("samples %llu sample_bytes %llu deferred %llu deferred_bytes %llu "
	       "user_bytes %llu user_frames %llu no_user %llu unmatched %llu "
	       "lost %llu file_bytes %llu\n",
	       (unsigned long long)t.samples, (unsigned long long)t.sample_bytes,
	       (unsigned long long)t.deferred, (unsigned long long)t.deferred_bytes,
	       (unsigned long long)t.user_bytes, (unsigned long long)t.user_frames,
	       (unsigned long long)t.no_user, (unsigned long long)t.unmatched,
	       (unsigned long long)t.lost, (unsigned long long)size);
	return 0;
}
