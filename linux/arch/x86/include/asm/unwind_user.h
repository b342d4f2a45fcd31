/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 answers for the user-space stack walker: the word size of the
 * interrupted task and whether a uprobe stopped it at a function entry.
 * Safe in any context; they only look at registers and current's uprobe.
 */
#ifndef _ASM_X86_UNWIND_USER_H
#define _ASM_X86_UNWIND_USER_H

#include <asm/ptrace.h>
#include <asm/uprobes.h>

/*
 * 64-bit tasks use 8-byte stack words, 32-bit (compat) tasks 4-byte ones.
 * vm86 mode uses segmented 16-bit stacks: not walked.
 */
static inline unsigned int arch_unwind_user_word_size(struct pt_regs *regs)
{
	if (v8086_mode(regs))
		return 0;
	return user_64bit_mode(regs) ? 8 : 4;
}

#define arch_unwind_user_word_size arch_unwind_user_word_size

/*
 * A uprobe on "push %bp" or "endbr64" stops the task before the function
 * set up its frame: the return address is at sp and bp is the caller's.
 */
static inline bool arch_unwind_user_at_func_entry(struct pt_regs *regs)
{
	return is_uprobe_at_func_entry(regs);
}

#define arch_unwind_user_at_func_entry arch_unwind_user_at_func_entry

#include <asm-generic/unwind_user.h>

#endif /* _ASM_X86_UNWIND_USER_H */
