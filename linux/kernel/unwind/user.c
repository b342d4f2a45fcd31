// SPDX-License-Identifier: GPL-2.0
/*
 * Walk the user-space stack of the current task by following the chain of
 * saved frame pointers.
 *
 * Every read of user memory uses get_user() and may fault and sleep: the walk
 * runs in task context with page faults enabled. A hostile or corrupt chain
 * cannot loop: each step must move strictly up the stack.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <linux/unwind_user.h>
#include <kunit/visibility.h>

/*
 * A frame set up by "push %bp; mov %sp, %bp": the caller's frame pointer is
 * saved at fp, the return address one word above, the caller's stack pointer
 * (the CFA) two words above.
 */
static void unwind_user_fp_frame(struct unwind_user_frame *frame,
				 unsigned int ws)
{
	frame->cfa_off = 2 * ws;
	frame->ra_off = -(s32)ws;
	frame->fp_off = -2 * (s32)ws;
	frame->use_fp = true;
}

/*
 * A function's first instruction: only the return address is on the stack,
 * at sp, and the frame pointer still holds the caller's value.
 */
static void unwind_user_entry_frame(struct unwind_user_frame *frame,
				    unsigned int ws)
{
	frame->cfa_off = ws;
	frame->ra_off = -(s32)ws;
	frame->fp_off = 0;
	frame->use_fp = false;
}

/**
 * unwind_user_frame_cfa - compute and check the CFA of the current frame
 * @state: walk state positioned on the current frame
 * @frame: layout of the current frame
 * @cfa: the caller's stack pointer, written on success
 *
 * Pure arithmetic, no user memory is read.
 *
 * Context: Any context.
 * Return: 0 if @cfa may be used, -EINVAL if the frame cannot be valid.
 */
VISIBLE_IF_KUNIT int unwind_user_frame_cfa(const struct unwind_user_state *state,
					   const struct unwind_user_frame *frame,
					   unsigned long *cfa)
{
	/* A live frame pointer points into the used part of the stack. */
	if (frame->use_fp && state->fp < state->sp)
		return -EINVAL;

	*cfa = (frame->use_fp ? state->fp : state->sp) + frame->cfa_off;

	/*
	 * The stack grows down, so the caller's frame lies strictly above the
	 * callee's. This ends cycles and catches a wrapped sum.
	 */
	if (*cfa <= state->sp)
		return -EINVAL;

	if (*cfa & (state->ws - 1))
		return -EINVAL;

	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(unwind_user_frame_cfa);

/* Read one word of the task's word size; a 4-byte word is zero-extended. */
static int unwind_user_get_word(unsigned long *word, unsigned long addr,
				unsigned int ws)
{
	u32 val;

	if (ws == sizeof(unsigned long))
		return get_user(*word, (unsigned long __user *)addr);

	if (get_user(val, (u32 __user *)addr))
		return -EFAULT;
	*word = val;
	return 0;
}

/* Move @state from the current frame to its caller's frame. */
static int unwind_user_step(struct unwind_user_state *state,
			    const struct unwind_user_frame *frame)
{
	unsigned long cfa, ra, fp = state->fp;

	if (unwind_user_frame_cfa(state, frame, &cfa))
		return -EINVAL;

	if (unwind_user_get_word(&ra, cfa + frame->ra_off, state->ws))
		return -EFAULT;

	if (frame->fp_off &&
	    unwind_user_get_word(&fp, cfa + frame->fp_off, state->ws))
		return -EFAULT;

	/* A return address outside user space ends the chain. */
	if (!ra || !access_ok((void __user *)ra, 1))
		return -EINVAL;

	state->ip = ra;
	state->sp = cfa;
	state->fp = fp;
	state->topmost = false;
	return 0;
}

static int unwind_user_next_fp(struct unwind_user_state *state)
{
	struct unwind_user_frame frame;

	if (state->topmost &&
	    arch_unwind_user_at_func_entry(task_pt_regs(current)))
		unwind_user_entry_frame(&frame, state->ws);
	else
		unwind_user_fp_frame(&frame, state->ws);

	return unwind_user_step(state, &frame);
}

/**
 * unwind_user_next - advance the iterator to the caller's frame
 * @state: iterator state set up by unwind_user_start()
 *
 * On failure the walk is over and @state->done is set.
 *
 * Context: Task context, page faults enabled; may fault and sleep.
 * Return: 0 if @state now describes the caller's frame, else a negative errno.
 */
int unwind_user_next(struct unwind_user_state *state)
{
	int ret = -EINVAL;

	might_fault();
	if (state->done)
		return -EINVAL;

	switch (state->type) {
	case UNWIND_USER_TYPE_FP:
		ret = unwind_user_next_fp(state);
		break;
	case UNWIND_USER_TYPE_NONE:
		break;
	}

	if (ret) {
		state->type = UNWIND_USER_TYPE_NONE;
		state->done = true;
	}
	return ret;
}
EXPORT_SYMBOL_GPL(unwind_user_next);

/**
 * unwind_user_start - position the iterator on the interrupted user frame
 * @state: iterator state to initialize
 *
 * Takes ip, sp and fp from the user registers the current task saved when it
 * entered the kernel. Kernel threads, user workers and tasks whose user mode
 * the architecture cannot walk (x86 vm86) get an empty walk.
 *
 * Context: Task context.
 * Return: @state, with @state->done set if there is no frame at all.
 */
struct unwind_user_state *unwind_user_start(struct unwind_user_state *state)
{
	struct pt_regs *regs = task_pt_regs(current);

	memset(state, 0, sizeof(*state));
	state->done = true;

	if (current->flags & (PF_KTHREAD | PF_USER_WORKER))
		return state;
	if (!user_mode(regs))
		return state;

	state->ws = arch_unwind_user_word_size(regs);
	if (!state->ws)
		return state;

	state->ip = instruction_pointer(regs);
	state->sp = user_stack_pointer(regs);
	state->fp = frame_pointer(regs);
	state->type = UNWIND_USER_TYPE_FP;
	state->topmost = true;
	state->done = false;
	return state;
}
EXPORT_SYMBOL_GPL(unwind_user_start);

/**
 * unwind_user - walk the user stack of the current task
 * @trace: destination; @trace->entries must hold @max_entries entries
 * @max_entries: maximum number of entries to store
 *
 * Stores the interrupted user ip and then one return address per frame.
 * The walk stops at the first frame that does not check out (see
 * unwind_user_frame_cfa()), at a faulting read, or after @max_entries.
 *
 * Context: Task context with page faults enabled; may fault and sleep.
 * Return: 0 with @trace->nr > 0, or -EINVAL if nothing could be walked
 * (then @trace->nr is 0).
 */
int unwind_user(struct unwind_stacktrace *trace, unsigned int max_entries)
{
	struct unwind_user_state state;

	might_fault();
	trace->nr = 0;

	/* get_user() would fail on every read and give a truncated trace. */
	if (WARN_ON_ONCE(pagefault_disabled()))
		return -EINVAL;

	if (!max_entries)
		return -EINVAL;

	for_each_user_frame(&state) {
		trace->entries[trace->nr++] = state.ip;
		if (trace->nr >= max_entries)
			break;
	}

	return trace->nr ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(unwind_user);
