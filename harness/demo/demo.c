// SPDX-License-Identifier: GPL-2.0
/*
 * Workload for `make run`, profiled there with
 * `perf record -e cpu-clock --call-graph fp,defer`: a main loop five functions
 * deep that loads an asset with one long read(2) from /dev/zero (many samples
 * in the kernel per system call) and then shades pixels (samples in user
 * space). Usage: demo [FRAMES]
 *
 * No libc: Debian's static libc has no frame pointers, so its start code would
 * end every user stack in garbage. Here _start clears the frame pointer and
 * calls main, and system calls are raw syscall instructions, so every user
 * frame is this file's and each stack ends cleanly at _start.
 */
#include "../bench/bench.h"		/* no-libc start code and system calls */

#define ASSET_BYTES (8L << 20)
#define O_RDONLY 0
#define PROT_RW 3				/* PROT_READ | PROT_WRITE */
#define MAP_ANON_POPULATE 0x8022	/* MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE */

static char *asset;			/* ASSET_BYTES, read into each frame */
static int zero;
volatile unsigned long checksum;	/* keeps the shading from being optimized out */

static __attribute__((noinline)) void read_asset(void)
{
	volatile char keep[8] = { 0 };

	if (sys3(__NR_read, zero, (long)asset, ASSET_BYTES) != ASSET_BYTES) {
		say("demo: read from /dev/zero failed\n");
		sys3(__NR_exit_group, 1, 0, 0);
	}
	(void)keep[0];
}

static __attribute__((noinline)) unsigned long shade_pixels(unsigned long seed)
{
	volatile char keep[8] = { 0 };

	for (long i = 0; i < 2000000; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		seed ^= seed >> 29;
	}
	(void)keep[0];
	return seed;
}

static __attribute__((noinline)) void load_assets(void)
{
	read_asset();
	asm volatile("" ::: "memory");
}

static __attribute__((noinline)) unsigned long render_frame(unsigned long seed)
{
	seed = shade_pixels(seed);
	asm volatile("" : "+r"(seed) :: "memory");
	return seed;
}

static __attribute__((noinline)) unsigned long update_scene(unsigned long seed)
{
	load_assets();
	seed = render_frame(seed);
	asm volatile("" : "+r"(seed) :: "memory");
	return seed;
}

static __attribute__((noinline)) void main_loop(long frames)
{
	unsigned long seed = 1;

	for (long i = 0; i < frames; i++)
		seed = update_scene(seed);
	checksum = seed;
}

int main(int argc, char **argv)
{
	long frames = 0;

	for (const char *p = argc > 1 ? argv[1] : "40"; *p >= '0' && *p <= '9'; p++)
		frames = frames * 10 + *p - '0';
	zero = sys3(__NR_open, (long)"/dev/zero", O_RDONLY, 0);
	if (zero < 0) {
		say("demo: cannot open /dev/zero\n");
		return 1;
	}
	asset = (char *)sys6(__NR_mmap, 0, ASSET_BYTES, PROT_RW, MAP_ANON_POPULATE, -1, 0);
	if ((unsigned long)asset > -4096UL) {
		say("demo: cannot map the asset buffer\n");
		return 1;
	}
	main_loop(frames);
	say("demo: done\n");
	return 0;
}
