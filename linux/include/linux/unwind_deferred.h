/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deferred user-space stack unwinding.
 *
 * A tracer registers a &struct unwind_work with unwind_deferred_init() and
 * asks for the current task's user stack with unwind_deferred_request(),
 * which may be called from any context, NMI included. The callback runs later
 * in the task's own context, on its way back to user space, where the walk may
 * fault. All requests made during one stay of the task in the kernel share a
 * cookie and one walk.
 */
#ifndef _LINUX_UNWIND_DEFERRED_H
#define _LINUX_UNWIND_DEFERRED_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/unwind_deferred_types.h>
#include <linux/unwind_user_types.h>

struct unwind_work;

/**
 * typedef unwind_callback_t - receives a deferred user stack trace
 * @work:	the &struct unwind_work that requested the trace
 * @trace:	the user stack; valid only during the call; @trace->nr is 0 if
 *		the walk failed
 * @cookie:	the cookie unwind_deferred_request() returned for it
 *
 * Runs in the context of the traced task, with interrupts enabled; it may
 * fault and sleep.
 */
typedef void (*unwind_callback_t)(struct unwind_work *work,
				  struct unwind_stacktrace *trace, u64 cookie);

/**
 * struct unwind_work - a tracer of deferred user stack traces
 * @list:	entry in the list of registered tracers
 * @func:	callback, see &typedef unwind_callback_t
 * @bit:	the tracer's bit in each task's request mask; -1 when cancelled
 */
struct unwind_work {
	struct list_head	list;
	unwind_callback_t	func;
	int			bit;
};

/*
 * Two bits of each task's mask hold task state (the task_work is queued, the
 * entry context has state to reset); the rest name tracers.
 */
enum {
	UNWIND_PENDING_BIT = 0,
	UNWIND_USED_BIT,
	UNWIND_FIRST_TRACER_BIT,
};

#define UNWIND_DEFERRED_MAX_TRACERS	(BITS_PER_LONG - UNWIND_FIRST_TRACER_BIT)

#ifdef CONFIG_UNWIND_USER

int unwind_user_faultable(struct unwind_stacktrace *trace);

int unwind_deferred_init(struct unwind_work *work, unwind_callback_t func);
int unwind_deferred_request(struct unwind_work *work, u64 *cookie);
void unwind_deferred_cancel(struct unwind_work *work);

void unwind_task_init(struct task_struct *task);
void unwind_task_free(struct task_struct *task);
void unwind_deferred_task_exit(struct task_struct *task);
void __unwind_task_reset(void);

/**
 * unwind_task_reset - end the current entry context on return to user space
 *
 * Forgets the cookie, the requesting tracers and the cached trace, unless a
 * walk is still pending. Costs one branch when nothing was requested.
 *
 * Context: Exit to user mode, interrupts disabled, instrumentable.
 */
static __always_inline void unwind_task_reset(void)
{
	if (likely(!READ_ONCE(current->unwind_info.unwind_mask)))
		return;
	__unwind_task_reset();
}

#if IS_ENABLED(CONFIG_KUNIT)
u32 unwind_cookie_next_cnt(u32 cnt);
u64 unwind_task_cookie(struct unwind_task_info *info);
int unwind_deferred_queue(struct unwind_task_info *info, int bit, u64 *cookie);
bool unwind_task_reset_claim(struct unwind_task_info *info);
void unwind_task_reset_finish(struct unwind_task_info *info);
#endif

#else /* !CONFIG_UNWIND_USER */

static inline int unwind_user_faultable(struct unwind_stacktrace *trace)
{
	trace->nr = 0;
	return -EOPNOTSUPP;
}

static inline int unwind_deferred_init(struct unwind_work *work,
				       unwind_callback_t func)
{
	return -EOPNOTSUPP;
}

static inline int unwind_deferred_request(struct unwind_work *work,
					  u64 *cookie)
{
	*cookie = 0;
	return -EOPNOTSUPP;
}

static inline void unwind_deferred_cancel(struct unwind_work *work) { }

static inline void unwind_task_init(struct task_struct *task) { }
static inline void unwind_task_free(struct task_struct *task) { }
static inline void unwind_deferred_task_exit(struct task_struct *task) { }
static inline void unwind_task_reset(void) { }

#endif /* CONFIG_UNWIND_USER */

#endif /* _LINUX_UNWIND_DEFERRED_H */
