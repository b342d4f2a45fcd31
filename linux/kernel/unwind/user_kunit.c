// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the user-space stack walker: the frame checks on
 * synthetic frames, and the empty walk of a task without a user stack.
 * KUnit runs them in a kernel thread, which has no user stack to read.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/unwind_user.h>

/* A frame as "push %bp; mov %sp, %bp" lays it out, for word size @ws. */
static struct unwind_user_frame fp_frame(unsigned int ws)
{
	return (struct unwind_user_frame) {
		.cfa_off = 2 * ws,
		.ra_off = -(s32)ws,
		.fp_off = -2 * (s32)ws,
		.use_fp = true,
	};
}

/* The frame at a function's first instruction: only the return address. */
static struct unwind_user_frame entry_frame(unsigned int ws)
{
	return (struct unwind_user_frame) {
		.cfa_off = ws,
		.ra_off = -(s32)ws,
		.use_fp = false,
	};
}

static void unwind_user_test_fp_frame(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .fp = 0x7040, .ws = 8 };
	struct unwind_user_frame frame = fp_frame(8);
	unsigned long cfa = 0;

	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa), 0);
	KUNIT_EXPECT_EQ(test, cfa, 0x7050UL);

	/* A frame pointer equal to the stack pointer is a valid empty frame. */
	state.fp = state.sp;
	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa), 0);
	KUNIT_EXPECT_EQ(test, cfa, 0x7010UL);
}

static void unwind_user_test_compat_frame(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .fp = 0x7014, .ws = 4 };
	struct unwind_user_frame frame = fp_frame(4);
	unsigned long cfa = 0;

	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa), 0);
	KUNIT_EXPECT_EQ(test, cfa, 0x701cUL);

	/* 4-byte aligned is enough for a 4-byte word, 2 is not. */
	state.fp = 0x7012;
	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa),
			-EINVAL);
}

static void unwind_user_test_entry_frame(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .fp = 0x1, .ws = 8 };
	struct unwind_user_frame frame = entry_frame(8);
	unsigned long cfa = 0;

	/* The frame pointer is the caller's and is not looked at. */
	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa), 0);
	KUNIT_EXPECT_EQ(test, cfa, 0x7008UL);
}

static void unwind_user_test_fp_below_sp(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .fp = 0x6ff0, .ws = 8 };
	struct unwind_user_frame frame = fp_frame(8);
	unsigned long cfa;

	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa),
			-EINVAL);

	/* The outermost frame of a program has a frame pointer of 0. */
	state.fp = 0;
	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa),
			-EINVAL);
}

static void unwind_user_test_misaligned(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .fp = 0x7044, .ws = 8 };
	struct unwind_user_frame frame = fp_frame(8);
	unsigned long cfa;

	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa),
			-EINVAL);
}

static void unwind_user_test_wrap(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .ws = 8 };
	struct unwind_user_frame frame = fp_frame(8);
	unsigned long cfa;

	/* fp + 16 wraps around to below the stack pointer. */
	state.fp = ULONG_MAX - 7;
	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa),
			-EINVAL);
}

static void unwind_user_test_no_progress(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .fp = 0x7000, .ws = 8 };
	struct unwind_user_frame frame = { .cfa_off = 0, .use_fp = false };
	unsigned long cfa;

	/* A CFA that does not move up the stack would never end. */
	KUNIT_EXPECT_EQ(test, unwind_user_frame_cfa(&state, &frame, &cfa),
			-EINVAL);
}

static void unwind_user_test_cycle(struct kunit *test)
{
	struct unwind_user_state state = { .sp = 0x7000, .fp = 0x7000, .ws = 8 };
	struct unwind_user_frame frame = fp_frame(8);
	unsigned long cfa;
	int steps = 0;

	/*
	 * Each saved frame pointer points to itself. Step the state as the
	 * walker does: the second step must be refused.
	 */
	while (!unwind_user_frame_cfa(&state, &frame, &cfa)) {
		state.sp = cfa;
		steps++;
		if (steps > 2)
			break;
	}
	KUNIT_EXPECT_EQ(test, steps, 1);
}

static void unwind_user_test_kthread(struct kunit *test)
{
	unsigned long entries[4] = { };
	struct unwind_stacktrace trace = { .nr = 42, .entries = entries };
	struct unwind_user_state state;
	int frames = 0;

	/* A kernel thread has no user stack: empty walk, nothing stored. */
	KUNIT_EXPECT_EQ(test, unwind_user(&trace, ARRAY_SIZE(entries)), -EINVAL);
	KUNIT_EXPECT_EQ(test, trace.nr, 0U);
	KUNIT_EXPECT_EQ(test, entries[0], 0UL);

	for_each_user_frame(&state)
		frames++;
	KUNIT_EXPECT_EQ(test, frames, 0);
	KUNIT_EXPECT_TRUE(test, state.done);
}

static struct kunit_case unwind_user_test_cases[] = {
	KUNIT_CASE(unwind_user_test_fp_frame),
	KUNIT_CASE(unwind_user_test_compat_frame),
	KUNIT_CASE(unwind_user_test_entry_frame),
	KUNIT_CASE(unwind_user_test_fp_below_sp),
	KUNIT_CASE(unwind_user_test_misaligned),
	KUNIT_CASE(unwind_user_test_wrap),
	KUNIT_CASE(unwind_user_test_no_progress),
	KUNIT_CASE(unwind_user_test_cycle),
	KUNIT_CASE(unwind_user_test_kthread),
	{}
};

static struct kunit_suite unwind_user_test_suite = {
	.name = "unwind_user",
	.test_cases = unwind_user_test_cases,
};

kunit_test_suite(unwind_user_test_suite);

MODULE_DESCRIPTION("KUnit tests for the user-space stack walker");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
