/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Architecture defaults for the user-space stack walker. An architecture
 * that selects HAVE_UNWIND_USER_FP and needs other answers defines the hook
 * (and a macro of the same name) before including this header.
 */
#ifndef _ASM_GENERIC_UNWIND_USER_H
#define _ASM_GENERIC_UNWIND_USER_H

#include <linux/types.h>

struct pt_regs;

#ifndef arch_unwind_user_word_size
/*
 * arch_unwind_user_word_size - size of a stack word of the interrupted task
 * @regs: the task's user registers
 *
 * Return: the word size in bytes, or 0 when the stack cannot be walked.
 */
static inline unsigned int arch_unwind_user_word_size(struct pt_regs *regs)
{
	return sizeof(long);
}

#define arch_unwind_user_word_size arch_unwind_user_word_size
#endif

#ifndef arch_unwind_user_at_func_entry
/*
 * arch_unwind_user_at_func_entry - is the task stopped at a function entry?
 * @regs: the task's user registers
 *
 * At a function's first instruction the frame pointer still belongs to the
 * caller and only the return address has been pushed. Only the architecture
 * can tell (e.g. from the instruction a uprobe replaced).
 *
 * Return: true if the topmost frame has not been set up yet.
 */
static inline bool arch_unwind_user_at_func_entry(struct pt_regs *regs)
{
	return false;
}

#define arch_unwind_user_at_func_entry arch_unwind_user_at_func_entry
#endif

#endif /* _ASM_GENERIC_UNWIND_USER_H */
