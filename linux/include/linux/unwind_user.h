/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walk the user-space stack of the current task.
 *
 * The walk reads user memory with get_user(): it may fault and sleep, so it
 * runs in task context with page faults enabled, never in IRQ or NMI context.
 * Code that samples in those contexts asks for a deferred walk instead, see
 * <linux/unwind_deferred.h>.
 */
#ifndef _LINUX_UNWIND_USER_H
#define _LINUX_UNWIND_USER_H

#include <linux/errno.h>
#include <linux/unwind_user_types.h>
#include <asm/unwind_user.h>

#ifdef CONFIG_UNWIND_USER

struct unwind_user_state *unwind_user_start(struct unwind_user_state *state);
int unwind_user_next(struct unwind_user_state *state);
int unwind_user(struct unwind_stacktrace *trace, unsigned int max_entries);

/**
 * for_each_user_frame - iterate over the frames of the current user stack
 * @state: iterator state, &struct unwind_user_state
 *
 * The body sees one frame per iteration in @state->ip, innermost first. The
 * loop ends when no further frame can be found; the body may also break out.
 *
 * Context: Task context, page faults enabled; may fault and sleep.
 */
#define for_each_user_frame(state)					\
	for (struct unwind_user_state *__uus = unwind_user_start(state); \
	     !__uus->done; unwind_user_next(__uus))

#if IS_ENABLED(CONFIG_KUNIT)
int unwind_user_frame_cfa(const struct unwind_user_state *state,
			  const struct unwind_user_frame *frame,
			  unsigned long *cfa);
#endif

#else /* !CONFIG_UNWIND_USER */

static inline int unwind_user(struct unwind_stacktrace *trace,
			      unsigned int max_entries)
{
	trace->nr = 0;
	return -EOPNOTSUPP;
}

#endif /* CONFIG_UNWIND_USER */

#endif /* _LINUX_UNWIND_USER_H */
