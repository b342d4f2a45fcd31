// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user-space stack unwinding.
 *
 * unwind_deferred_request() may be called from any context, NMI included: it
 * never sleeps and never allocates. It takes the cookie of the current entry
 * context and queues the task's task_work, in which the user stack is walked
 * once and every tracer that asked gets its callback, in the task's own
 * context where user memory may be faulted in. unwind_user_faultable() may
 * fault and sleep; unwind_deferred_init() and unwind_deferred_cancel() run
 * in process context and may sleep.
 */
#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/unwind_deferred.h>
#include <linux/unwind_user.h>
#include <kunit/visibility.h>

/*
 * Bits of unwind_task_info::unwind_mask. Each bit from
 * UNWIND_FIRST_TRACER_BIT up belongs to one registered tracer and is set by
 * its request in the current entry context.
 *
 * UNWIND_PENDING: the task_work is queued and has not started. Only the
 *	request that sets it queues the work, so the work is queued once.
 * UNWIND_USED: the entry context has state (cookie, tracer bits, cached
 *	trace) that the return to user space must reset.
 *
 *   PENDING USED tracers  state
 *      0     0    none    idle; the return to user costs one branch
 *      1     1    some    task_work queued; the return to user keeps all
 *      0     1    any     callbacks ran or trace cached; the return resets
 *      1     0    none    the return to user is resetting (IRQs off); a
 *                         request, only possible from NMI, gets -EBUSY
 */
#define UNWIND_PENDING		BIT(UNWIND_PENDING_BIT)
#define UNWIND_USED		BIT(UNWIND_USED_BIT)
#define UNWIND_RESERVED		(UNWIND_PENDING | UNWIND_USED)
#define UNWIND_RESETTING	UNWIND_PENDING

/**
 * struct unwind_cache - the per-task trace, walked once per entry context
 * @nr_entries:	number of valid entries
 * @walked:	the walk of the current entry context has been done
 * @entries:	the trace, filling the rest of the page
 */
struct unwind_cache {
	unsigned int	nr_entries;
	bool		walked;
	unsigned long	entries[];
};

#define UNWIND_CACHE_SIZE	PAGE_SIZE
#define UNWIND_MAX_ENTRIES						\
	((UNWIND_CACHE_SIZE - sizeof(struct unwind_cache)) / sizeof(long))

/*
 * Last cookie counter value taken on this CPU. Only the current task, with
 * IRQs off, and an NMI on its behalf touch it; see unwind_task_cookie().
 */
static DEFINE_PER_CPU(u32, unwind_cookie_ctr);

/* Serializes unwind_deferred_init() and _cancel(): unwind_tracers, list adds and deletes. */
static DEFINE_MUTEX(unwind_mutex);

/* Registered tracers; traversed under unwind_srcu. */
static LIST_HEAD(unwind_works);

/* Tracer bits handed out; the reserved bits never are. Under unwind_mutex. */
static unsigned long unwind_tracers = UNWIND_RESERVED;

/*
 * Requests (from any context, hence the NMI-safe flavour) and callbacks use
 * a tracer only inside a read section, so cancel can wait for them.
 */
DEFINE_STATIC_SRCU(unwind_srcu);

/**
 * unwind_cookie_next_cnt - next value of a per-CPU cookie counter
 * @cnt: the counter's last value
 *
 * Steps by two and keeps the lowest bit set, so the result is never 0, also
 * when the counter wraps after 2^31 cookies.
 *
 * Context: Any context.
 * Return: the new counter value, which is odd.
 */
VISIBLE_IF_KUNIT u32 unwind_cookie_next_cnt(u32 cnt)
{
	return (cnt + 2) | 1;
}
EXPORT_SYMBOL_IF_KUNIT(unwind_cookie_next_cnt);

/* Counter in the upper half, CPU + 1 in the lower half: never 0 once taken. */
static u64 unwind_cookie(const struct unwind_task_id *id)
{
	return (u64)READ_ONCE(id->cnt) << 32 | READ_ONCE(id->cpu);
}

/**
 * unwind_task_cookie - get the cookie of the current entry context
 * @info: the current task's deferred unwinding state
 *
 * The first call in an entry context takes a new cookie from this CPU's
 * counter; later calls return the same one until the task returns to user
 * space, also after it migrated to another CPU.
 *
 * Context: IRQs disabled; any context including NMI.
 * Return: the cookie, never 0.
 */
VISIBLE_IF_KUNIT u64 unwind_task_cookie(struct unwind_task_info *info)
{
	u32 old = 0, cnt;

	lockdep_assert_irqs_disabled();

	/* A set CPU half means the counter half is set too (see below). */
	if (READ_ONCE(info->id.cpu))
		return unwind_cookie(&info->id);

	/*
	 * An NMI can interrupt this before the CPU half is stored and take a
	 * cookie too. The 32-bit cmpxchg lets one of them claim a counter
	 * value; the other one reuses it. Both run on this CPU with IRQs off,
	 * so both store the same CPU half, and only the winner advances the
	 * per-CPU counter.
	 */
	cnt = unwind_cookie_next_cnt(__this_cpu_read(unwind_cookie_ctr));
	if (try_cmpxchg(&info->id.cnt, &old, cnt))
		__this_cpu_write(unwind_cookie_ctr, cnt);

	/*
	 * Store the CPU half after the counter half: the cmpxchg is a compiler
	 * barrier, and the only concurrent reader is an NMI on this CPU.
	 */
	WRITE_ONCE(info->id.cpu, smp_processor_id() + 1);
	return unwind_cookie(&info->id);
}
EXPORT_SYMBOL_IF_KUNIT(unwind_task_cookie);

/* Allocate the cache at the first walk of the task: never from a request. */
static struct unwind_cache *unwind_task_cache(struct unwind_task_info *info)
{
	might_sleep();

	if (!info->cache)
		info->cache = kzalloc(UNWIND_CACHE_SIZE, GFP_KERNEL);
	return info->cache;
}

/**
 * unwind_user_faultable - get the user stack of the current task
 * @trace: filled with the trace; the entries stay valid until the task
 *	   returns to user space
 *
 * Walks the user stack at most once per entry context; later calls in the
 * same entry context, including the deferred callbacks, get the cached
 * result. The cache is allocated at the first call of the task.
 *
 * Context: Task context, page faults enabled; may fault and sleep.
 * Return: 0 on success, -EINVAL if the task has no user stack to walk,
 * -ENOMEM if the cache cannot be allocated. @trace->nr is 0 on error.
 */
int unwind_user_faultable(struct unwind_stacktrace *trace)
{
	struct unwind_task_info *info = &current->unwind_info;
	struct unwind_cache *cache;

	might_fault();
	trace->nr = 0;
	trace->entries = NULL;

	/* No user stack, and no cache for tasks that never return to user. */
	if (current->flags & (PF_KTHREAD | PF_USER_WORKER))
		return -EINVAL;

	cache = unwind_task_cache(info);
	if (!cache)
		return -ENOMEM;

	if (!cache->walked) {
		trace->entries = cache->entries;
		unwind_user(trace, UNWIND_MAX_ENTRIES);
		cache->nr_entries = trace->nr;
		cache->walked = true;
		/* Have the return to user space invalidate the cache. */
		set_bit(UNWIND_USED_BIT, &info->unwind_mask);
	}

	trace->entries = cache->entries;
	trace->nr = cache->nr_entries;
	return trace->nr ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(unwind_user_faultable);

/* Run the callbacks of the tracers that asked since the work was queued. */
static void unwind_deferred_run(struct unwind_task_info *info)
{
	struct unwind_stacktrace trace, copy;
	struct unwind_work *work;
	unsigned long mask;
	u64 cookie;
	int idx, bit;

	/*
	 * Read the mask inside the read section: unwind_deferred_cancel()
	 * clears a tracer's bits only after synchronize_srcu(), so no stale
	 * bit can be matched to a tracer that reuses it.
	 */
	idx = srcu_read_lock_nmisafe(&unwind_srcu);

	/*
	 * Clear PENDING before walking: a request from now on queues the work
	 * again. Pairs with the cmpxchg in unwind_deferred_queue().
	 */
	mask = READ_ONCE(info->unwind_mask);
	do {
		if (!(mask & UNWIND_PENDING))
			goto out;
	} while (!try_cmpxchg(&info->unwind_mask, &mask,
			      mask & ~UNWIND_PENDING));

	mask &= ~(UNWIND_RESERVED | READ_ONCE(info->unwind_done));
	if (!mask)
		goto out;

	unwind_user_faultable(&trace);
	cookie = unwind_cookie(&info->id);

	list_for_each_entry_srcu(work, &unwind_works, list,
				 srcu_read_lock_held(&unwind_srcu)) {
		bit = READ_ONCE(work->bit);
		if (bit < 0 || !(mask & BIT(bit)))
			continue;
		/* Once per entry context, even if it asks again from its callback. */
		set_bit(bit, &info->unwind_done);
		copy = trace;
		work->func(work, &copy, cookie);
	}
out:
	srcu_read_unlock_nmisafe(&unwind_srcu, idx);
}

static void unwind_deferred_task_work(struct callback_head *head)
{
	unwind_deferred_run(container_of(head, struct unwind_task_info, work));
}

/* May the current task ask for a deferred walk? */
static bool unwind_deferred_task_ok(void)
{
	/*
	 * Kernel threads and user workers never return to user space; an
	 * exiting task runs no more task_work with its mm.
	 */
	if (current->flags & (PF_KTHREAD | PF_USER_WORKER | PF_EXITING))
		return false;
	return user_mode(task_pt_regs(current));
}

/**
 * unwind_deferred_queue - mark a request and queue the work if needed
 * @info: the current task's unwind state
 * @bit: the requesting tracer's bit
 * @cookie: set to the cookie of the current entry context
 *
 * The body of unwind_deferred_request(). Non-static for KUnit only.
 *
 * Context: IRQs disabled, or NMI.
 * Return: as unwind_deferred_request(), without its -EINVAL cases.
 */
VISIBLE_IF_KUNIT int unwind_deferred_queue(struct unwind_task_info *info, int bit,
					   u64 *cookie)
{
	unsigned long old, new;
	int twa;

	lockdep_assert_irqs_disabled();

	/*
	 * An NMI on the last steps of the return to user space, while
	 * __unwind_task_reset() clears the cookie. Checked once: with IRQs
	 * off, only an NMI can run between here and the cmpxchg below, and
	 * an NMI does not start a reset.
	 */
	old = READ_ONCE(info->unwind_mask);
	if ((old & UNWIND_RESERVED) == UNWIND_RESETTING)
		return -EBUSY;

	*cookie = unwind_task_cookie(info);

	/* Pairs with the cmpxchg in unwind_deferred_run() and the reset. */
	do {
		if (old & BIT(bit))
			return 1;
		new = old | BIT(bit) | UNWIND_USED | UNWIND_PENDING;
	} while (!try_cmpxchg(&info->unwind_mask, &old, new));

	/* The queued work has not started: it will serve this tracer too. */
	if (old & UNWIND_PENDING)
		return 0;

	twa = in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME;
	/* Cannot fail: the task is not exiting, and the work is not queued. */
	if (WARN_ON_ONCE(task_work_add(current, &info->work, twa))) {
		old = new;
		while (!try_cmpxchg(&info->unwind_mask, &old,
				    old & ~(BIT(bit) | UNWIND_PENDING)))
			;
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(unwind_deferred_queue);

/**
 * unwind_deferred_request - ask for the user stack of the current task
 * @work: a tracer registered with unwind_deferred_init()
 * @cookie: set to the cookie of the current entry context, 0 on error
 *
 * Queues @work's callback to run with the user stack trace before the task
 * returns to user space. All requests in one entry context get the same
 * cookie and share one walk; each tracer's callback runs at most once per
 * entry context, and runs exactly once after this returned 0 unless @work
 * is cancelled first.
 *
 * Context: Any context, NMI included; never sleeps or allocates.
 * Return: 0 if the callback is now queued, 1 if it was already queued or
 * has already run in this entry context, -EINVAL for a kernel thread, an
 * exiting task, a task not entered from user mode or a cancelled @work,
 * -EBUSY from an NMI that hit the end of the entry context (its callbacks
 * have run; the caller may walk the user stack itself).
 */
int unwind_deferred_request(struct unwind_work *work, u64 *cookie)
{
	struct unwind_task_info *info = &current->unwind_info;
	unsigned long flags;
	int bit, idx, ret;

	*cookie = 0;

	/* The request is lock-free only where cmpxchg is NMI-safe. */
	if (WARN_ON_ONCE(in_nmi() &&
			 !IS_ENABLED(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG)))
		return -EINVAL;

	if (!unwind_deferred_task_ok())
		return -EINVAL;

	/* Pairs with synchronize_srcu() in unwind_deferred_cancel(). */
	idx = srcu_read_lock_nmisafe(&unwind_srcu);
	bit = READ_ONCE(work->bit);
	if (bit < UNWIND_FIRST_TRACER_BIT) {
		/* -1 is a cancelled work; a reserved bit was never set up. */
		WARN_ON_ONCE(bit >= 0);
		ret = -EINVAL;
	} else {
		local_irq_save(flags);
		ret = unwind_deferred_queue(info, bit, cookie);
		local_irq_restore(flags);
	}
	srcu_read_unlock_nmisafe(&unwind_srcu, idx);
	return ret;
}
EXPORT_SYMBOL_GPL(unwind_deferred_request);

/**
 * unwind_deferred_init - register a tracer of deferred user stacks
 * @work: the tracer's handle, owned by the caller until cancelled
 * @func: callback that receives the traces
 *
 * Hands out one of UNWIND_DEFERRED_MAX_TRACERS tracer bits.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -EINVAL without @func, -EBUSY if all tracer bits
 * are in use.
 */
int unwind_deferred_init(struct unwind_work *work, unwind_callback_t func)
{
	unsigned long bit;

	might_sleep();
	if (WARN_ON_ONCE(!work || !func))
		return -EINVAL;

	guard(mutex)(&unwind_mutex);

	if (unwind_tracers == ~0UL)
		return -EBUSY;
	bit = ffz(unwind_tracers);
	__set_bit(bit, &unwind_tracers);

	work->func = func;
	WRITE_ONCE(work->bit, bit);
	list_add_rcu(&work->list, &unwind_works);
	return 0;
}
EXPORT_SYMBOL_GPL(unwind_deferred_init);

/**
 * unwind_deferred_cancel - unregister a tracer
 * @work: a tracer registered with unwind_deferred_init(), or NULL
 *
 * Later requests of @work fail with -EINVAL. Waits for callbacks of @work
 * that are running, and drops its pending ones: after this returns, no
 * callback of @work runs. Its bit is cleared in every task and may be
 * handed out again. Must not be called from @work's own callback.
 *
 * Context: Process context; sleeps.
 */
void unwind_deferred_cancel(struct unwind_work *work)
{
	struct task_struct *g, *t;
	int bit;

	might_sleep();
	if (!work)
		return;

	guard(mutex)(&unwind_mutex);

	bit = work->bit;
	/* Never registered, or cancelled already. */
	if (bit < UNWIND_FIRST_TRACER_BIT)
		return;

	/* Pairs with READ_ONCE() in the request and in the callback loop. */
	WRITE_ONCE(work->bit, -1);
	list_del_rcu(&work->list);

	/* Wait for the requests and the callbacks that still saw @work. */
	synchronize_srcu(&unwind_srcu);

	/* No one sets the bit any more: forget it in every task. */
	rcu_read_lock();
	for_each_process_thread(g, t) {
		clear_bit(bit, &t->unwind_info.unwind_mask);
		clear_bit(bit, &t->unwind_info.unwind_done);
	}
	rcu_read_unlock();

	__clear_bit(bit, &unwind_tracers);
}
EXPORT_SYMBOL_GPL(unwind_deferred_cancel);

/**
 * unwind_task_reset_claim - first step of the reset: claim the mask
 * @info: the current task's unwind state
 *
 * Fails while the work is pending: it was queued from NMI after the
 * task_work loop and runs after the next entry, with this entry context's
 * cookie. Otherwise replaces the mask with the resetting state, in which
 * requests fail with -EBUSY. Non-static for KUnit only.
 *
 * Context: Exit to user mode, IRQs disabled.
 * Return: true if claimed; unwind_task_reset_finish() must follow.
 */
VISIBLE_IF_KUNIT bool unwind_task_reset_claim(struct unwind_task_info *info)
{
	unsigned long mask = READ_ONCE(info->unwind_mask);

	lockdep_assert_irqs_disabled();

	/*
	 * A request from NMI that interrupts this sets PENDING and makes the
	 * cmpxchg fail. Pairs with the cmpxchg in unwind_deferred_queue().
	 */
	do {
		if (mask & UNWIND_PENDING)
			return false;
	} while (!try_cmpxchg(&info->unwind_mask, &mask, UNWIND_RESETTING));
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(unwind_task_reset_claim);

/**
 * unwind_task_reset_finish - second step of the reset: forget everything
 * @info: the current task's unwind state, claimed by unwind_task_reset_claim()
 *
 * Clears the cookie, the cached trace and the done bits, then the mask.
 * Non-static for KUnit only.
 *
 * Context: Exit to user mode, IRQs disabled.
 */
VISIBLE_IF_KUNIT void unwind_task_reset_finish(struct unwind_task_info *info)
{
	lockdep_assert_irqs_disabled();

	WRITE_ONCE(info->id.cpu, 0);
	WRITE_ONCE(info->id.cnt, 0);
	if (info->cache)
		info->cache->walked = false;
	WRITE_ONCE(info->unwind_done, 0);
	/*
	 * Only an NMI on this CPU, which must see the cookie cleared before
	 * the mask, and unwind_deferred_cancel(), whose clear_bit() finds no
	 * tracer bit set, look at the mask meanwhile.
	 */
	barrier();
	WRITE_ONCE(info->unwind_mask, 0);
}
EXPORT_SYMBOL_IF_KUNIT(unwind_task_reset_finish);

/**
 * __unwind_task_reset - end the entry context of the current task
 *
 * Slow path of unwind_task_reset(), taken when the mask is not empty.
 * Keeps everything while the task_work is pending. Otherwise it claims the
 * mask first, so that a request from an NMI hitting the reset fails with
 * -EBUSY instead of taking a cookie that the reset would then clear, or
 * that would stay for the next entry context.
 *
 * Context: Exit to user mode, IRQs disabled.
 */
void __unwind_task_reset(void)
{
	struct unwind_task_info *info = &current->unwind_info;

	lockdep_assert_irqs_disabled();

	if (unwind_task_reset_claim(info))
		unwind_task_reset_finish(info);
}

/**
 * unwind_deferred_task_exit - run pending callbacks of an exiting task
 * @task: the exiting task, current
 *
 * Called before perf_event_exit_task() and exit_mm(), so that the walk still
 * finds the user stack and the callbacks still find the task's events.
 * New requests are refused from PF_EXITING on.
 *
 * Context: do_exit(), process context; may fault and sleep.
 */
void unwind_deferred_task_exit(struct task_struct *task)
{
	struct unwind_task_info *info = &task->unwind_info;

	might_sleep();
	if (WARN_ON_ONCE(task != current))
		return;

	if (!(READ_ONCE(info->unwind_mask) & UNWIND_PENDING))
		return;

	/* Take the work off the list before running it here. */
	task_work_cancel(task, &info->work);
	unwind_deferred_run(info);
}

/**
 * unwind_task_init - set up the state of a new task
 * @task: the new task, not yet running
 *
 * A child inherits no cookie, requests or cache from its parent.
 *
 * Context: copy_process().
 */
void unwind_task_init(struct task_struct *task)
{
	struct unwind_task_info *info = &task->unwind_info;

	memset(info, 0, sizeof(*info));
	init_task_work(&info->work, unwind_deferred_task_work);
}

/**
 * unwind_task_free - release the state of a dead task
 * @task: the task being freed
 *
 * Context: __put_task_struct(); any context that may call kfree().
 */
void unwind_task_free(struct task_struct *task)
{
	struct unwind_task_info *info = &task->unwind_info;

	kfree(info->cache);
	task_work_cancel(task, &info->work);
}
