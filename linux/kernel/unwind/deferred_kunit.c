// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for deferred user-space unwinding: cookie construction,
 * tracer bit allocation and its limit, cancel, the refusal of requests
 * from a task without a user stack, and requests during the reset. KUnit
 * runs them in a kernel thread; other tracers may be registered at the same
 * time.
 */
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/unwind_deferred.h>

#define COOKIE_CNT(c)	((u32)((c) >> 32))
#define COOKIE_CPU(c)	((u32)(c))

static void unwind_deferred_test_callback(struct unwind_work *work,
					  struct unwind_stacktrace *trace,
					  u64 cookie)
{
}

static void unwind_deferred_test_next_cnt(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, unwind_cookie_next_cnt(0), 3U);
	KUNIT_EXPECT_EQ(test, unwind_cookie_next_cnt(3), 5U);
	KUNIT_EXPECT_EQ(test, unwind_cookie_next_cnt(0xfffffffd), 0xffffffffU);
	/* Wrapping after 2^31 steps stays odd and non-zero. */
	KUNIT_EXPECT_EQ(test, unwind_cookie_next_cnt(0xffffffff), 1U);
	KUNIT_EXPECT_EQ(test, unwind_cookie_next_cnt(1), 3U);
}

static void unwind_deferred_test_cookie(struct kunit *test)
{
	struct unwind_task_info info = { };
	unsigned long flags;
	u64 first, again, next;
	unsigned int cpu;

	/* IRQs off: no migration, and no other cookie taken on this CPU. */
	local_irq_save(flags);
	cpu = smp_processor_id();
	first = unwind_task_cookie(&info);
	again = unwind_task_cookie(&info);
	memset(&info, 0, sizeof(info));
	next = unwind_task_cookie(&info);
	local_irq_restore(flags);

	KUNIT_EXPECT_NE(test, first, 0ULL);
	KUNIT_EXPECT_EQ(test, COOKIE_CPU(first), cpu + 1);
	KUNIT_EXPECT_TRUE(test, COOKIE_CNT(first) & 1);

	/* The same entry context keeps its cookie. */
	KUNIT_EXPECT_EQ(test, again, first);

	/* The next entry context on this CPU gets the next counter value. */
	KUNIT_EXPECT_EQ(test, COOKIE_CPU(next), cpu + 1);
	KUNIT_EXPECT_EQ(test, COOKIE_CNT(next),
			unwind_cookie_next_cnt(COOKIE_CNT(first)));
}

static void unwind_deferred_test_cookie_race(struct kunit *test)
{
	struct unwind_task_info info = { };
	unsigned long flags;
	u64 before, lost, after;
	unsigned int cpu;

	local_irq_save(flags);
	cpu = smp_processor_id();
	before = unwind_task_cookie(&info);

	/*
	 * The first caller claimed the counter half and was interrupted
	 * before it stored the CPU half. The second caller must reuse the
	 * claimed counter and leave the per-CPU counter alone.
	 */
	memset(&info, 0, sizeof(info));
	info.id.cnt = 0x12345679;
	lost = unwind_task_cookie(&info);

	memset(&info, 0, sizeof(info));
	after = unwind_task_cookie(&info);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, COOKIE_CNT(lost), 0x12345679U);
	KUNIT_EXPECT_EQ(test, COOKIE_CPU(lost), cpu + 1);
	KUNIT_EXPECT_EQ(test, COOKIE_CNT(after),
			unwind_cookie_next_cnt(COOKIE_CNT(before)));
}

static void unwind_deferred_test_bits(struct kunit *test)
{
	struct unwind_work *works, extra = { };
	unsigned long seen = 0;
	int i, n, freed;

	works = kunit_kcalloc(test, UNWIND_DEFERRED_MAX_TRACERS + 1,
			      sizeof(*works), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, works);

	/* Take every free tracer bit; other tracers may hold some. */
	for (n = 0; n <= UNWIND_DEFERRED_MAX_TRACERS; n++) {
		if (unwind_deferred_init(&works[n],
					 unwind_deferred_test_callback))
			break;
		KUNIT_EXPECT_GE(test, works[n].bit, UNWIND_FIRST_TRACER_BIT);
		KUNIT_EXPECT_LT(test, works[n].bit, BITS_PER_LONG);
		KUNIT_EXPECT_FALSE(test, seen & BIT(works[n].bit));
		seen |= BIT(works[n].bit);
	}
	KUNIT_EXPECT_LE(test, n, UNWIND_DEFERRED_MAX_TRACERS);
	KUNIT_EXPECT_EQ(test, unwind_deferred_init(&extra,
						   unwind_deferred_test_callback),
			-EBUSY);
	KUNIT_ASSERT_GT(test, n, 0);

	/* A cancelled tracer's bit can be handed out again. */
	freed = works[0].bit;
	unwind_deferred_cancel(&works[0]);
	KUNIT_EXPECT_EQ(test, works[0].bit, -1);
	KUNIT_EXPECT_EQ(test, unwind_deferred_init(&extra,
						   unwind_deferred_test_callback),
			0);
	KUNIT_EXPECT_EQ(test, extra.bit, freed);
	unwind_deferred_cancel(&extra);

	/* Cancelling twice is harmless. */
	unwind_deferred_cancel(&works[0]);
	unwind_deferred_cancel(NULL);

	for (i = 1; i < n; i++)
		unwind_deferred_cancel(&works[i]);
}

static void unwind_deferred_test_kthread(struct kunit *test)
{
	struct unwind_stacktrace trace = { .nr = 42 };
	struct unwind_work work = { };
	u64 cookie = 42;

	KUNIT_ASSERT_EQ(test, unwind_deferred_init(&work,
						   unwind_deferred_test_callback),
			0);

	/* A kernel thread never returns to user space: refused, cookie 0. */
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &cookie), -EINVAL);
	KUNIT_EXPECT_EQ(test, cookie, 0ULL);

	KUNIT_EXPECT_EQ(test, unwind_user_faultable(&trace), -EINVAL);
	KUNIT_EXPECT_EQ(test, trace.nr, 0U);

	/* Still refused once cancelled. */
	unwind_deferred_cancel(&work);
	cookie = 42;
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &cookie), -EINVAL);
	KUNIT_EXPECT_EQ(test, cookie, 0ULL);
}

/*
 * The return to user space resets the entry context in two steps. An NMI
 * request between them must fail and leave the cookie alone, rather than
 * take a cookie that the reset clears or that outlives the entry context.
 */
static void unwind_deferred_test_reset_window(struct kunit *test)
{
	const int bit = UNWIND_FIRST_TRACER_BIT + 1;
	const int other = UNWIND_FIRST_TRACER_BIT;
	struct unwind_task_info info = { };
	bool claimed_pending, claimed;
	unsigned long flags, mask;
	int queued, busy, again;
	u64 cookie, in_reset = 42;
	u32 cnt, cnt_in_reset;

	local_irq_save(flags);
	/* The work is queued: a request only adds its bit. */
	info.unwind_mask = BIT(UNWIND_PENDING_BIT) | BIT(UNWIND_USED_BIT);
	queued = unwind_deferred_queue(&info, bit, &cookie);
	cnt = info.id.cnt;

	/* No reset while the work is pending. */
	claimed_pending = unwind_task_reset_claim(&info);
	mask = info.unwind_mask;

	/* The work ran the callback; the reset claims the mask. */
	info.unwind_mask &= ~BIT(UNWIND_PENDING_BIT);
	info.unwind_done = BIT(bit);
	claimed = unwind_task_reset_claim(&info);

	/* NMIs between the two steps, from the tracer and from another one. */
	busy = unwind_deferred_queue(&info, bit, &in_reset);
	again = unwind_deferred_queue(&info, other, &in_reset);
	cnt_in_reset = info.id.cnt;

	unwind_task_reset_finish(&info);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, queued, 0);
	KUNIT_EXPECT_NE(test, cookie, 0ULL);
	KUNIT_EXPECT_FALSE(test, claimed_pending);
	KUNIT_EXPECT_EQ(test, mask, BIT(UNWIND_PENDING_BIT) |
			BIT(UNWIND_USED_BIT) | BIT(bit));
	KUNIT_EXPECT_TRUE(test, claimed);
	KUNIT_EXPECT_EQ(test, busy, -EBUSY);
	KUNIT_EXPECT_EQ(test, again, -EBUSY);
	KUNIT_EXPECT_EQ(test, in_reset, 42ULL);
	KUNIT_EXPECT_EQ(test, cnt_in_reset, cnt);

	/* Everything is forgotten: the next entry takes a new cookie. */
	KUNIT_EXPECT_EQ(test, info.unwind_mask, 0UL);
	KUNIT_EXPECT_EQ(test, info.unwind_done, 0UL);
	KUNIT_EXPECT_EQ(test, info.id.cnt, 0U);
	KUNIT_EXPECT_EQ(test, info.id.cpu, 0U);
}

static struct kunit_case unwind_deferred_test_cases[] = {
	KUNIT_CASE(unwind_deferred_test_next_cnt),
	KUNIT_CASE(unwind_deferred_test_cookie),
	KUNIT_CASE(unwind_deferred_test_cookie_race),
	KUNIT_CASE(unwind_deferred_test_bits),
	KUNIT_CASE(unwind_deferred_test_kthread),
	KUNIT_CASE(unwind_deferred_test_reset_window),
	{}
};

static struct kunit_suite unwind_deferred_test_suite = {
	.name = "unwind_deferred",
	.test_cases = unwind_deferred_test_cases,
};

kunit_test_suite(unwind_deferred_test_suite);

MODULE_DESCRIPTION("KUnit tests for deferred user-space stack unwinding");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
