/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by the user-space stack walker and its users. Nothing here
 * has behaviour of its own; see <linux/unwind_user.h> for the contract.
 */
#ifndef _LINUX_UNWIND_USER_TYPES_H
#define _LINUX_UNWIND_USER_TYPES_H

#include <linux/types.h>

/**
 * struct unwind_stacktrace - a user-space stack trace
 * @nr:		number of valid entries in @entries
 * @entries:	return addresses, innermost first; entry 0 is the user ip
 *		at which the task entered the kernel
 */
struct unwind_stacktrace {
	unsigned int	nr;
	unsigned long	*entries;
};

/**
 * enum unwind_user_type - how the walker finds the next frame
 * @UNWIND_USER_TYPE_NONE:	no walk possible, or the walk has ended
 * @UNWIND_USER_TYPE_FP:	follow the frame-pointer chain
 */
enum unwind_user_type {
	UNWIND_USER_TYPE_NONE,
	UNWIND_USER_TYPE_FP,
};

/**
 * struct unwind_user_frame - where one frame keeps its caller's state
 * @cfa_off:	offset of the canonical frame address (the caller's stack
 *		pointer) from the base register
 * @ra_off:	offset of the return address from the CFA
 * @fp_off:	offset of the saved frame pointer from the CFA; 0 when the
 *		frame has not saved it (the caller's value is still live)
 * @use_fp:	the base register is the frame pointer, else the stack pointer
 */
struct unwind_user_frame {
	s32	cfa_off;
	s32	ra_off;
	s32	fp_off;
	bool	use_fp;
};

/**
 * struct unwind_user_state - iterator over the frames of a user stack
 * @ip:		instruction pointer of the current frame
 * @sp:		stack pointer of the current frame
 * @fp:		frame pointer of the current frame
 * @ws:		word size of the user task in bytes (4 or 8)
 * @type:	method used to find the next frame
 * @topmost:	@ip is the interrupted user ip, not a return address
 * @done:	the walk has ended; @ip is not valid
 */
struct unwind_user_state {
	unsigned long		ip;
	unsigned long		sp;
	unsigned long		fp;
	unsigned int		ws;
	enum unwind_user_type	type;
	bool			topmost;
	bool			done;
};

#endif /* _LINUX_UNWIND_USER_TYPES_H */
