/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-task state of deferred user-space unwinding, embedded in task_struct.
 * Only the deferred unwinding code touches it; see <linux/unwind_deferred.h>.
 */
#ifndef _LINUX_UNWIND_DEFERRED_TYPES_H
#define _LINUX_UNWIND_DEFERRED_TYPES_H

#include <linux/types.h>

struct unwind_cache;

/**
 * struct unwind_task_id - the two halves of the current entry context's cookie
 * @cnt:	odd per-CPU counter value; claimed with a 32-bit cmpxchg against 0
 * @cpu:	CPU that took the cookie, plus one; 0 while no cookie is taken
 */
struct unwind_task_id {
	u32	cnt;
	u32	cpu;
};

/**
 * struct unwind_task_info - deferred unwinding state of one task
 * @unwind_mask:	requesting tracers and state bits of this entry context
 * @unwind_done:	tracers whose callback already ran in this entry context
 * @cache:		lazily allocated trace cache, NULL until the first walk
 * @work:		the task's single task_work that runs the callbacks
 * @id:			cookie of this entry context
 */
struct unwind_task_info {
	unsigned long		unwind_mask;
	unsigned long		unwind_done;
	struct unwind_cache	*cache;
	struct callback_head	work;
	struct unwind_task_id	id;
};

#endif /* _LINUX_UNWIND_DEFERRED_TYPES_H */
