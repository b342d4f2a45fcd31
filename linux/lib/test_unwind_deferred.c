// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for deferred user-space stack unwinding.
 *
 * Lets a user-space test program drive unwind_deferred_request() for itself
 * from task, hard-IRQ and NMI context, move between CPUs and block between
 * requests, cancel tracers, and read back every callback it caused. The
 * selftests in tools/testing/selftests/unwind/ are its users.
 *
 * Context: commands run in the writer's process context and may sleep. The
 * IRQ, NMI and kprobe handlers only call unwind_deferred_request() on a
 * tracer the writer holds a reference to and publish the result. Callbacks
 * run in the traced task, may sleep, and take udt_data_lock.
 *
 * Interface, in <debugfs>/unwind_deferred_test/:
 *
 *   control  Write one command. Reading from offset 0 returns the result
 *            lines of the last command written through the same open file
 *            (the write rewinds the file position; pread() works too). A
 *            malformed command fails with -EINVAL; a failing step stops the
 *            command and the write returns its error, the lines of the steps
 *            before it remain readable.
 *   records  One line per callback, oldest first:
 *            "<pid> <tracer> 0x<cookie> <ctx> <nr> 0x<ip>..." where pid is
 *            the thread id, ctx the contexts that requested it through
 *            "request" ("task,irq,nmi", "-" for none) and nr the trace length
 *            (at most UDT_MAX_IPS ips follow). At most UDT_MAX_RECORDS are
 *            kept; further callbacks only count as "dropped".
 *   status   "<name> <value>" lines: requests, callbacks, walks (real walks,
 *            counted by a kprobe on unwind_user(); -1 without it), records,
 *            dropped, late (callbacks of an already cancelled tracer),
 *            waiting (writers blocked in a "wait" step), then the results of
 *            armed requests: "fork <fired> <pid> <ret> 0x<cookie>", the same
 *            for "exit", and "close <fired> <pid> <exiting> <ret> 0x<cookie>".
 *
 * Commands (one per write):
 *
 *   register [N]       register N tracers (default 1): "register <id>" each.
 *                      Ids are never reused.
 *   cancel ID          unwind_deferred_cancel() the tracer: "cancel <id>".
 *   reset              cancel every tracer, disarm, drop records and counters.
 *   request STEP...    run the steps in order within this one system call:
 *     task:IDS         request for each tracer in IDS (e.g. "0,1,2") here;
 *     irq:IDS          the same from a hard-IRQ irq_work that interrupts us;
 *     nmi:IDS          the same from a self-NMI (x86 local APIC only);
 *                      each prints "req <ctx> <id> <ret> 0x<cookie>".
 *     migrate          move to another online CPU: "migrate <from> <to>";
 *                      the affinity is restored before the write returns.
 *     wait:MS          sleep killably up to MS ms (at most 10000): "wait <ret>".
 *     faultable        unwind_user_faultable(): "faultable <ret> <nr> 0x<ip>...".
 *   kthread ID         request from a kernel thread: "kthread <ret> 0x<cookie>".
 *   arm fork ID        request from the next kernel_clone() of this thread.
 *   arm exit ID        request from the entry of this thread's do_exit().
 *   arm close ID       request when this open file is released (an exiting
 *                      task releases its files after exit_mm()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/panic.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unwind_deferred.h>

#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#define UDT_MAX_TRACERS		64	/* above the core's limit, to see -EBUSY */
#define UDT_MAX_IDS		8	/* tracers named in one step */
#define UDT_MAX_RECORDS		1024
#define UDT_MAX_PENDING		1024
#define UDT_MAX_IPS		128U	/* ips kept per record */
#define UDT_MAX_FAULTABLE_IPS	64U	/* ips printed by "faultable" */
#define UDT_MAX_WAIT_MS		10000
#define UDT_HANDLER_TIMEOUT_NS	NSEC_PER_SEC
#define UDT_CMD_MAX		256

enum udt_ctx {
	UDT_CTX_TASK,
	UDT_CTX_IRQ,
	UDT_CTX_NMI,
	UDT_NR_CTX,
};

static const char * const udt_ctx_names[UDT_NR_CTX] = {
	[UDT_CTX_TASK]	= "task",
	[UDT_CTX_IRQ]	= "irq",
	[UDT_CTX_NMI]	= "nmi",
};

/**
 * struct udt_tracer - one registered unwind_work
 * @work:	the tracer as the core knows it
 * @ref:	references: the tracer table or graveyard, and every user
 * @id:		user-visible id, never reused
 * @cancelled:	set once unwind_deferred_cancel() has returned
 * @pending:	struct udt_pending of requests not yet called back,
 *		protected by udt_data_lock
 * @grave:	node on udt_graveyard once cancelled
 */
struct udt_tracer {
	struct unwind_work	work;
	struct kref		ref;
	unsigned int		id;
	bool			cancelled;
	struct list_head	pending;
	struct list_head	grave;
};

/* Contexts a thread requested a tracer from, until its callback runs. */
struct udt_pending {
	struct list_head	node;
	pid_t			pid;
	unsigned int		ctx_mask;
};

/* One callback as user space reads it back. */
struct udt_record {
	struct list_head	node;
	pid_t			pid;
	unsigned int		tracer;
	unsigned int		ctx_mask;
	unsigned int		nr;
	unsigned int		nr_ips;
	u64			cookie;
	unsigned long		ips[] __counted_by(nr_ips);
};

/*
 * One request step. The handler that fires it runs on the writer's CPU
 * while the writer spins with preemption disabled, and publishes @done.
 */
struct udt_req {
	struct udt_tracer	*tracers[UDT_MAX_IDS];
	int			ret[UDT_MAX_IDS];
	u64			cookie[UDT_MAX_IDS];
	unsigned int		nr;
	struct task_struct	*task;
	struct irq_work		irq_work;
	int			done;
};

/* A request to issue from a kprobe when the armed task gets there. */
struct udt_arm {
	struct kprobe		kp;
	bool			probed;	/* kp is registered */
	struct task_struct	*task;	/* armed task, claimed with cmpxchg */
	struct udt_tracer	*tracer; /* reference held until re-armed */
	bool			fired;	/* release, pairs with udt_status_show() */
	pid_t			pid;
	int			ret;
	u64			cookie;
};

/* State of one open control file. */
struct udt_file {
	struct mutex		lock;	/* serializes commands and reads */
	char			*buf;	/* result lines of the last command */
	size_t			len;
	struct udt_tracer	*close_tracer;	/* "arm close", a reference */
	cpumask_var_t		saved_mask;	/* affinity before "migrate" */
	bool			migrated;
};

/* Protects udt_tracers[] and udt_next_id. */
static DEFINE_MUTEX(udt_tracers_lock);
static struct udt_tracer *udt_tracers[UDT_MAX_TRACERS];
static unsigned int udt_next_id;

/*
 * Protects the records, the pending lists, the graveyard and the close
 * result. Callbacks take it: never hold it across unwind_deferred_cancel().
 */
static DEFINE_MUTEX(udt_data_lock);
static LIST_HEAD(udt_records);
static unsigned int udt_nr_records;
static unsigned int udt_nr_pending;
static LIST_HEAD(udt_graveyard);

/* Protects arming and disarming of the kprobe arms. */
static DEFINE_MUTEX(udt_arm_lock);

/* Counters reported by the status file. */
static atomic_long_t udt_requests;
static atomic_long_t udt_callbacks;
static atomic_long_t udt_walks;
static atomic_long_t udt_dropped;
static atomic_long_t udt_late;
static atomic_t udt_waiting;

/* Result of the last "arm close" request, under udt_data_lock. */
static struct {
	bool	fired;
	bool	exiting;
	pid_t	pid;
	int	ret;
	u64	cookie;
} udt_close_result;

static struct dentry *udt_dir;

/* The kprobe on unwind_user() that counts walks is registered. */
static bool udt_walk_probed;

static void udt_tracer_release(struct kref *ref)
{
	struct udt_tracer *t = container_of(ref, struct udt_tracer, ref);

	WARN_ON_ONCE(!t->cancelled || !list_empty(&t->pending));
	kfree(t);
}

static void udt_tracer_put(struct udt_tracer *t)
{
	if (t)
		kref_put(&t->ref, udt_tracer_release);
}

/* Look up a registered tracer and take a reference, NULL if unknown. */
static struct udt_tracer *udt_tracer_get(unsigned int id)
{
	struct udt_tracer *t = NULL;
	int i;

	mutex_lock(&udt_tracers_lock);
	for (i = 0; i < UDT_MAX_TRACERS; i++) {
		if (udt_tracers[i] && udt_tracers[i]->id == id) {
			t = udt_tracers[i];
			kref_get(&t->ref);
			break;
		}
	}
	mutex_unlock(&udt_tracers_lock);
	return t;
}

/* Take a tracer out of the table; the caller gets the table's reference. */
static struct udt_tracer *udt_tracer_unpublish(unsigned int id)
{
	struct udt_tracer *t = NULL;
	int i;

	mutex_lock(&udt_tracers_lock);
	for (i = 0; i < UDT_MAX_TRACERS; i++) {
		if (udt_tracers[i] && udt_tracers[i]->id == id) {
			t = udt_tracers[i];
			udt_tracers[i] = NULL;
			break;
		}
	}
	mutex_unlock(&udt_tracers_lock);
	return t;
}

static void udt_pending_flush(struct udt_tracer *t)
{
	struct udt_pending *p, *tmp;

	lockdep_assert_held(&udt_data_lock);
	list_for_each_entry_safe(p, tmp, &t->pending, node) {
		list_del(&p->node);
		udt_nr_pending--;
		kfree(p);
	}
}

/*
 * Cancel an unpublished tracer and move it, with the table's reference, to
 * the graveyard: a callback that still runs for it is counted as late.
 */
static void udt_tracer_retire(struct udt_tracer *t)
{
	might_sleep();
	unwind_deferred_cancel(&t->work);
	WRITE_ONCE(t->cancelled, true);

	mutex_lock(&udt_data_lock);
	udt_pending_flush(t);
	list_add_tail(&t->grave, &udt_graveyard);
	mutex_unlock(&udt_data_lock);
}

/* Remember that this thread requested @t from @ctx, for its record. */
static void udt_pending_note(struct udt_tracer *t, enum udt_ctx ctx)
{
	struct udt_pending *p, *new = kmalloc(sizeof(*new), GFP_KERNEL);

	mutex_lock(&udt_data_lock);
	list_for_each_entry(p, &t->pending, node) {
		if (p->pid == current->pid) {
			p->ctx_mask |= BIT(ctx);
			goto unlock;
		}
	}
	/* udt_tracer_retire() sets cancelled before it flushes, under the lock. */
	if (new && !READ_ONCE(t->cancelled) && udt_nr_pending < UDT_MAX_PENDING) {
		new->pid = current->pid;
		new->ctx_mask = BIT(ctx);
		list_add_tail(&new->node, &t->pending);
		udt_nr_pending++;
		new = NULL;
	}
unlock:
	mutex_unlock(&udt_data_lock);
	kfree(new);
}

static unsigned int udt_pending_take(struct udt_tracer *t)
{
	struct udt_pending *p;
	unsigned int mask;

	lockdep_assert_held(&udt_data_lock);
	list_for_each_entry(p, &t->pending, node) {
		if (p->pid == current->pid) {
			mask = p->ctx_mask;
			list_del(&p->node);
			udt_nr_pending--;
			kfree(p);
			return mask;
		}
	}
	return 0;
}

static void udt_callback(struct unwind_work *work,
			 struct unwind_stacktrace *trace, u64 cookie)
{
	struct udt_tracer *t = container_of(work, struct udt_tracer, work);
	unsigned int nr_ips = min(trace->nr, UDT_MAX_IPS);
	struct udt_record *rec;

	might_sleep();
	atomic_long_inc(&udt_callbacks);
	if (READ_ONCE(t->cancelled)) {
		atomic_long_inc(&udt_late);
		pr_err("callback of cancelled tracer %u\n", t->id);
	}

	rec = kmalloc(struct_size(rec, ips, nr_ips), GFP_KERNEL);
	if (rec) {
		rec->nr_ips = nr_ips;
		rec->pid = current->pid;
		rec->tracer = t->id;
		rec->nr = trace->nr;
		rec->cookie = cookie;
		if (nr_ips)
			memcpy(rec->ips, trace->entries, nr_ips * sizeof(rec->ips[0]));
	}

	mutex_lock(&udt_data_lock);
	if (rec)
		rec->ctx_mask = udt_pending_take(t);
	if (rec && udt_nr_records < UDT_MAX_RECORDS) {
		list_add_tail(&rec->node, &udt_records);
		udt_nr_records++;
		rec = NULL;
	} else {
		atomic_long_inc(&udt_dropped);
	}
	mutex_unlock(&udt_data_lock);
	kfree(rec);
}

static void udt_free_records(void)
{
	struct udt_record *rec, *tmp;

	lockdep_assert_held(&udt_data_lock);
	list_for_each_entry_safe(rec, tmp, &udt_records, node) {
		list_del(&rec->node);
		kfree(rec);
	}
	udt_nr_records = 0;
}

/* Append one result line for the writer; silently truncated when full. */
static __printf(2, 3) void udt_printf(struct udt_file *f, const char *fmt, ...)
{
	va_list args;

	lockdep_assert_held(&f->lock);
	va_start(args, fmt);
	f->len += vscnprintf(f->buf + f->len, PAGE_SIZE - f->len, fmt, args);
	va_end(args);
}

/* Issue the requests of @req in the current context and publish them. */
static void udt_req_fire(struct udt_req *req)
{
	unsigned int i;

	for (i = 0; i < req->nr; i++) {
		req->cookie[i] = 0;
		if (current != req->task) {
			req->ret[i] = -ESRCH;
			continue;
		}
		req->ret[i] = unwind_deferred_request(&req->tracers[i]->work,
						      &req->cookie[i]);
		atomic_long_inc(&udt_requests);
	}
	/* Pairs with smp_load_acquire() in udt_req_wait(). */
	smp_store_release(&req->done, 1);
}

/* Spin, preemption disabled, until the handler on this CPU has fired. */
static int udt_req_wait(struct udt_req *req)
{
	u64 end = ktime_get_ns() + UDT_HANDLER_TIMEOUT_NS;

	lockdep_assert_preemption_disabled();
	/* Pairs with smp_store_release() in udt_req_fire(). */
	while (!smp_load_acquire(&req->done)) {
		if (ktime_get_ns() > end)
			return -ETIMEDOUT;
		cpu_relax();
	}
	return 0;
}

static void udt_irq_work_fn(struct irq_work *work)
{
	struct udt_req *req = container_of(work, struct udt_req, irq_work);

	WARN_ON_ONCE(!in_hardirq());
	udt_req_fire(req);
}

static int udt_req_irq(struct udt_req *req)
{
	int ret;

	lockdep_assert_irqs_enabled();
	req->irq_work = IRQ_WORK_INIT_HARD(udt_irq_work_fn);
	preempt_disable();
	irq_work_queue(&req->irq_work);
	ret = udt_req_wait(req);
	preempt_enable();
	/* After a timeout it may still run, then outside the writer: -ESRCH. */
	irq_work_sync(&req->irq_work);
	return ret;
}

#ifdef CONFIG_X86_LOCAL_APIC
/* The request the next self-NMI on this CPU fires; NULL when idle. */
static DEFINE_PER_CPU(struct udt_req *, udt_nmi_req);

static int udt_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct udt_req *req = this_cpu_xchg(udt_nmi_req, NULL);

	if (!req)
		return NMI_DONE;
	udt_req_fire(req);
	return NMI_HANDLED;
}

static int udt_req_nmi(struct udt_req *req)
{
	int ret;

	preempt_disable();
	this_cpu_write(udt_nmi_req, req);
	/* Not send_IPI_self(): the x2APIC self-IPI register cannot send NMIs. */
	__apic_send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	ret = udt_req_wait(req);
	/* An NMI that took it ran on this CPU and has finished. */
	if (ret && !this_cpu_xchg(udt_nmi_req, NULL))
		ret = 0;
	preempt_enable();
	return ret;
}

static int udt_nmi_init(void)
{
	return register_nmi_handler(NMI_LOCAL, udt_nmi_handler, 0,
				    KBUILD_MODNAME);
}

static void udt_nmi_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, KBUILD_MODNAME);
}
#else
static int udt_req_nmi(struct udt_req *req)
{
	return -EOPNOTSUPP;
}

static int udt_nmi_init(void)
{
	return 0;
}

static void udt_nmi_exit(void)
{
}
#endif

/* Parse "ID[,ID...]" into @req, taking a reference on each tracer. */
static int udt_req_parse(struct udt_req *req, char *ids)
{
	struct udt_tracer *t;
	unsigned int id;
	char *tok;

	while ((tok = strsep(&ids, ","))) {
		if (req->nr == UDT_MAX_IDS || kstrtouint(tok, 0, &id))
			return -EINVAL;
		t = udt_tracer_get(id);
		if (!t)
			return -EINVAL;
		req->tracers[req->nr++] = t;
	}
	return req->nr ? 0 : -EINVAL;
}

static int udt_step_request(struct udt_file *f, enum udt_ctx ctx, char *ids)
{
	struct udt_req req = { .task = current };
	unsigned int i;
	int ret;

	ret = udt_req_parse(&req, ids);
	if (ret)
		goto put;

	switch (ctx) {
	case UDT_CTX_TASK:
		udt_req_fire(&req);
		break;
	case UDT_CTX_IRQ:
		ret = udt_req_irq(&req);
		break;
	default:
		ret = udt_req_nmi(&req);
		break;
	}
	if (ret)
		goto put;

	for (i = 0; i < req.nr; i++) {
		udt_printf(f, "req %s %u %d 0x%llx\n", udt_ctx_names[ctx],
			   req.tracers[i]->id, req.ret[i], req.cookie[i]);
		if (req.ret[i] >= 0)
			udt_pending_note(req.tracers[i], ctx);
	}
put:
	for (i = 0; i < req.nr; i++)
		udt_tracer_put(req.tracers[i]);
	return ret;
}

static int udt_step_migrate(struct udt_file *f)
{
	int from = raw_smp_processor_id();
	int to = cpumask_any_but(cpu_online_mask, from);
	int ret;

	if (to >= nr_cpu_ids)
		return -EOPNOTSUPP;
	if (!f->migrated) {
		cpumask_copy(f->saved_mask, current->cpus_ptr);
		f->migrated = true;
	}
	ret = set_cpus_allowed_ptr(current, cpumask_of(to));
	if (ret)
		return ret;
	udt_printf(f, "migrate %d %d\n", from, raw_smp_processor_id());
	return 0;
}

static int udt_step_wait(struct udt_file *f, char *arg)
{
	unsigned int ms;
	long left;
	int ret;

	if (kstrtouint(arg, 0, &ms) || ms > UDT_MAX_WAIT_MS)
		return -EINVAL;

	atomic_inc(&udt_waiting);
	left = msecs_to_jiffies(ms);
	while (left && !fatal_signal_pending(current))
		left = schedule_timeout_killable(left);
	atomic_dec(&udt_waiting);

	ret = fatal_signal_pending(current) ? -EINTR : 0;
	udt_printf(f, "wait %d\n", ret);
	return ret;
}

static int udt_step_faultable(struct udt_file *f)
{
	struct unwind_stacktrace trace = { };
	unsigned int i;
	int ret;

	ret = unwind_user_faultable(&trace);
	udt_printf(f, "faultable %d %u", ret, trace.nr);
	for (i = 0; !ret && i < min(trace.nr, UDT_MAX_FAULTABLE_IPS); i++)
		udt_printf(f, " 0x%lx", trace.entries[i]);
	udt_printf(f, "\n");
	return 0;
}

static int udt_step(struct udt_file *f, char *step)
{
	char *arg = step;
	char *name = strsep(&arg, ":");
	int ctx;

	ctx = match_string(udt_ctx_names, UDT_NR_CTX, name);
	if (ctx >= 0 && arg)
		return udt_step_request(f, ctx, arg);
	if (!strcmp(name, "wait") && arg)
		return udt_step_wait(f, arg);
	if (arg)
		return -EINVAL;
	if (!strcmp(name, "migrate"))
		return udt_step_migrate(f);
	if (!strcmp(name, "faultable"))
		return udt_step_faultable(f);
	return -EINVAL;
}

static int udt_cmd_request(struct udt_file *f, char *args)
{
	char *step;
	int ret = -EINVAL;

	while ((step = strsep(&args, " "))) {
		if (!*step)
			continue;
		ret = udt_step(f, step);
		if (ret)
			break;
	}
	if (f->migrated) {
		set_cpus_allowed_ptr(current, f->saved_mask);
		f->migrated = false;
	}
	return ret;
}

static int udt_cmd_register(struct udt_file *f, unsigned int n)
{
	struct udt_tracer *t;
	int i, ret = 0;

	if (!n || n > UDT_MAX_TRACERS)
		return -EINVAL;

	while (n--) {
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (!t)
			return -ENOMEM;
		kref_init(&t->ref);
		INIT_LIST_HEAD(&t->pending);
		ret = unwind_deferred_init(&t->work, udt_callback);
		if (ret) {
			kfree(t);
			return ret;
		}

		mutex_lock(&udt_tracers_lock);
		for (i = 0; i < UDT_MAX_TRACERS && udt_tracers[i]; i++)
			;
		if (i < UDT_MAX_TRACERS) {
			t->id = udt_next_id++;
			udt_tracers[i] = t;
		}
		mutex_unlock(&udt_tracers_lock);

		if (i == UDT_MAX_TRACERS) {
			udt_tracer_retire(t);
			return -ENOSPC;
		}
		udt_printf(f, "register %u\n", t->id);
	}
	return 0;
}

static int udt_cmd_cancel(struct udt_file *f, unsigned int id)
{
	struct udt_tracer *t = udt_tracer_unpublish(id);

	if (!t)
		return -EINVAL;
	udt_tracer_retire(t);
	udt_printf(f, "cancel %u\n", id);
	return 0;
}

struct udt_kthread_req {
	struct udt_tracer	*tracer;
	struct completion	done;
	int			ret;
	u64			cookie;
};

static int udt_kthread_fn(void *data)
{
	struct udt_kthread_req *kreq = data;

	kreq->ret = unwind_deferred_request(&kreq->tracer->work, &kreq->cookie);
	atomic_long_inc(&udt_requests);
	complete(&kreq->done);
	return 0;
}

static int udt_cmd_kthread(struct udt_file *f, unsigned int id)
{
	struct udt_kthread_req kreq = { };
	struct task_struct *task;

	kreq.tracer = udt_tracer_get(id);
	if (!kreq.tracer)
		return -EINVAL;
	init_completion(&kreq.done);

	task = kthread_create(udt_kthread_fn, &kreq, "udt_kthread");
	if (IS_ERR(task)) {
		udt_tracer_put(kreq.tracer);
		return PTR_ERR(task);
	}
	get_task_struct(task);
	wake_up_process(task);
	wait_for_completion(&kreq.done);
	kthread_stop_put(task);

	udt_printf(f, "kthread %d 0x%llx\n", kreq.ret, kreq.cookie);
	udt_tracer_put(kreq.tracer);
	return 0;
}

static int udt_arm_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct udt_arm *arm = container_of(kp, struct udt_arm, kp);

	if (READ_ONCE(arm->task) != current ||
	    cmpxchg(&arm->task, current, NULL) != current)
		return 0;

	arm->pid = current->pid;
	arm->ret = unwind_deferred_request(&arm->tracer->work, &arm->cookie);
	atomic_long_inc(&udt_requests);
	/* Pairs with smp_load_acquire() in udt_status_show(). */
	smp_store_release(&arm->fired, true);
	return 0;
}

static struct udt_arm udt_fork_arm = {
	.kp = { .symbol_name = "kernel_clone", .pre_handler = udt_arm_pre },
};

static struct udt_arm udt_exit_arm = {
	.kp = { .symbol_name = "do_exit", .pre_handler = udt_arm_pre },
};

/* Disarm and drop the tracer; a NULL @t leaves it disarmed. */
static int udt_arm_set(struct udt_arm *arm, struct udt_tracer *t)
{
	struct udt_tracer *old;

	if (!arm->probed)
		return -EOPNOTSUPP;

	mutex_lock(&udt_arm_lock);
	WRITE_ONCE(arm->task, NULL);
	/* Wait for handlers that claimed the old arming (preemption off). */
	synchronize_rcu();
	old = arm->tracer;
	arm->tracer = t;
	arm->fired = false;
	arm->pid = 0;
	arm->ret = 0;
	arm->cookie = 0;
	/*
	 * Publish tracer and result fields before the task the probe matches;
	 * pairs with the cmpxchg() in udt_arm_pre(). Disarming stores NULL,
	 * which arm->task already is.
	 */
	smp_store_release(&arm->task, t ? current : NULL);
	mutex_unlock(&udt_arm_lock);

	udt_tracer_put(old);
	return 0;
}

static int udt_cmd_arm(struct udt_file *f, const char *what, unsigned int id)
{
	struct udt_tracer *t = udt_tracer_get(id);
	struct udt_arm *arm;
	int ret;

	if (!t)
		return -EINVAL;
	if (!strcmp(what, "close")) {
		swap(f->close_tracer, t);
		udt_tracer_put(t);
		udt_printf(f, "arm close %u\n", id);
		return 0;
	}
	if (!strcmp(what, "fork")) {
		arm = &udt_fork_arm;
	} else if (!strcmp(what, "exit")) {
		arm = &udt_exit_arm;
	} else {
		udt_tracer_put(t);
		return -EINVAL;
	}
	ret = udt_arm_set(arm, t);
	if (ret) {
		udt_tracer_put(t);
		return ret;
	}
	udt_printf(f, "arm %s %u\n", what, id);
	return 0;
}

static void udt_reset(void)
{
	struct udt_tracer *tracers[UDT_MAX_TRACERS], *t, *tmp;
	LIST_HEAD(dead);
	int i;

	mutex_lock(&udt_tracers_lock);
	for (i = 0; i < UDT_MAX_TRACERS; i++) {
		tracers[i] = udt_tracers[i];
		udt_tracers[i] = NULL;
	}
	mutex_unlock(&udt_tracers_lock);

	for (i = 0; i < UDT_MAX_TRACERS; i++)
		if (tracers[i])
			udt_tracer_retire(tracers[i]);

	if (udt_fork_arm.probed)
		udt_arm_set(&udt_fork_arm, NULL);
	if (udt_exit_arm.probed)
		udt_arm_set(&udt_exit_arm, NULL);

	mutex_lock(&udt_data_lock);
	udt_free_records();
	list_splice_init(&udt_graveyard, &dead);
	memset(&udt_close_result, 0, sizeof(udt_close_result));
	atomic_long_set(&udt_requests, 0);
	atomic_long_set(&udt_callbacks, 0);
	atomic_long_set(&udt_walks, udt_walk_probed ? 0 : -1);
	atomic_long_set(&udt_dropped, 0);
	atomic_long_set(&udt_late, 0);
	mutex_unlock(&udt_data_lock);

	list_for_each_entry_safe(t, tmp, &dead, grave) {
		list_del(&t->grave);
		udt_tracer_put(t);
	}
}

/* Split "WORD [ARG...]" and run it; returns 0 or a negative errno. */
static int udt_command(struct udt_file *f, char *cmd)
{
	char *word = strsep(&cmd, " ");
	char *what = NULL;
	unsigned int n = 1;

	if (!strcmp(word, "request"))
		return cmd ? udt_cmd_request(f, cmd) : -EINVAL;
	if (!strcmp(word, "reset") && !cmd) {
		udt_reset();
		udt_printf(f, "reset\n");
		return 0;
	}
	if (!strcmp(word, "arm"))
		what = strsep(&cmd, " ");
	if (cmd && kstrtouint(cmd, 0, &n))
		return -EINVAL;

	if (!strcmp(word, "register"))
		return udt_cmd_register(f, n);
	if (!cmd)
		return -EINVAL;
	if (!strcmp(word, "cancel"))
		return udt_cmd_cancel(f, n);
	if (!strcmp(word, "kthread"))
		return udt_cmd_kthread(f, n);
	if (what)
		return udt_cmd_arm(f, what, n);
	return -EINVAL;
}

static ssize_t udt_control_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct udt_file *f = file->private_data;
	char *cmd;
	int ret;

	if (!count || count >= UDT_CMD_MAX)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);

	mutex_lock(&f->lock);
	f->len = 0;
	f->buf[0] = '\0';
	ret = udt_command(f, strim(cmd));
	*ppos = 0;
	mutex_unlock(&f->lock);

	kfree(cmd);
	return ret ? ret : count;
}

static ssize_t udt_control_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct udt_file *f = file->private_data;
	ssize_t ret;

	mutex_lock(&f->lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, f->buf, f->len);
	mutex_unlock(&f->lock);
	return ret;
}

static int udt_control_open(struct inode *inode, struct file *file)
{
	struct udt_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->buf = (char *)get_zeroed_page(GFP_KERNEL);
	if (!f->buf || !zalloc_cpumask_var(&f->saved_mask, GFP_KERNEL)) {
		free_page((unsigned long)f->buf);
		kfree(f);
		return -ENOMEM;
	}
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

/*
 * The last reference to a file goes away in the task that closes it; an
 * exiting task closes its files after exit_mm(), with PF_EXITING set.
 */
static int udt_control_release(struct inode *inode, struct file *file)
{
	struct udt_file *f = file->private_data;
	u64 cookie = 0;
	int ret;

	if (f->close_tracer) {
		ret = unwind_deferred_request(&f->close_tracer->work, &cookie);
		atomic_long_inc(&udt_requests);

		mutex_lock(&udt_data_lock);
		udt_close_result.fired = true;
		udt_close_result.exiting = current->flags & PF_EXITING;
		udt_close_result.pid = current->pid;
		udt_close_result.ret = ret;
		udt_close_result.cookie = cookie;
		mutex_unlock(&udt_data_lock);
		udt_tracer_put(f->close_tracer);
	}
	free_cpumask_var(f->saved_mask);
	free_page((unsigned long)f->buf);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations udt_control_fops = {
	.owner		= THIS_MODULE,
	.open		= udt_control_open,
	.release	= udt_control_release,
	.read		= udt_control_read,
	.write		= udt_control_write,
	.llseek		= default_llseek,
};

static void *udt_records_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&udt_data_lock);
	return seq_list_start_head(&udt_records, *pos);
}

static void *udt_records_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &udt_records, pos);
}

static void udt_records_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&udt_data_lock);
}

static int udt_records_show(struct seq_file *m, void *v)
{
	struct udt_record *rec;
	unsigned int i;
	int ctx;

	if (v == &udt_records) {
		seq_puts(m, "# pid tracer cookie ctx nr ips...\n");
		return 0;
	}

	rec = list_entry(v, struct udt_record, node);
	seq_printf(m, "%d %u 0x%llx ", rec->pid, rec->tracer, rec->cookie);
	if (!rec->ctx_mask)
		seq_putc(m, '-');
	for (ctx = 0; ctx < UDT_NR_CTX; ctx++)
		if (rec->ctx_mask & BIT(ctx))
			seq_printf(m, "%s%s", rec->ctx_mask & (BIT(ctx) - 1) ?
				   "," : "", udt_ctx_names[ctx]);
	seq_printf(m, " %u", rec->nr);
	for (i = 0; i < rec->nr_ips; i++)
		seq_printf(m, " 0x%lx", rec->ips[i]);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations udt_records_sops = {
	.start	= udt_records_start,
	.next	= udt_records_next,
	.stop	= udt_records_stop,
	.show	= udt_records_show,
};
DEFINE_SEQ_ATTRIBUTE(udt_records);

static void udt_arm_show(struct seq_file *m, const char *name,
			 struct udt_arm *arm)
{
	/* Pairs with smp_store_release() in udt_arm_pre(). */
	if (!smp_load_acquire(&arm->fired)) {
		seq_printf(m, "%s 0 0 0 0x0\n", name);
		return;
	}
	seq_printf(m, "%s 1 %d %d 0x%llx\n", name, arm->pid, arm->ret,
		   arm->cookie);
}

static int udt_status_show(struct seq_file *m, void *v)
{
	seq_printf(m, "requests %ld\n", atomic_long_read(&udt_requests));
	seq_printf(m, "callbacks %ld\n", atomic_long_read(&udt_callbacks));
	seq_printf(m, "walks %ld\n", atomic_long_read(&udt_walks));
	seq_printf(m, "dropped %ld\n", atomic_long_read(&udt_dropped));
	seq_printf(m, "late %ld\n", atomic_long_read(&udt_late));
	seq_printf(m, "waiting %d\n", atomic_read(&udt_waiting));

	mutex_lock(&udt_arm_lock);
	udt_arm_show(m, "fork", &udt_fork_arm);
	udt_arm_show(m, "exit", &udt_exit_arm);
	mutex_unlock(&udt_arm_lock);

	mutex_lock(&udt_data_lock);
	seq_printf(m, "records %u\n", udt_nr_records);
	seq_printf(m, "close %d %d %d %d 0x%llx\n", udt_close_result.fired,
		   udt_close_result.pid, udt_close_result.exiting,
		   udt_close_result.ret, udt_close_result.cookie);
	mutex_unlock(&udt_data_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(udt_status);

static int udt_walk_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_long_inc(&udt_walks);
	return 0;
}

static struct kprobe udt_walk_probe = {
	.symbol_name	= "unwind_user",
	.pre_handler	= udt_walk_pre,
};

static void udt_probe(struct kprobe *kp, bool *probed)
{
	int ret = register_kprobe(kp);

	if (ret)
		pr_warn("cannot probe %s: %d\n", kp->symbol_name, ret);
	*probed = !ret;
}

static int __init udt_init(void)
{
	int ret;

	add_taint(TAINT_TEST, LOCKDEP_STILL_OK);

	ret = udt_nmi_init();
	if (ret)
		return ret;

	udt_probe(&udt_walk_probe, &udt_walk_probed);
	if (!udt_walk_probed)
		atomic_long_set(&udt_walks, -1);
	udt_probe(&udt_fork_arm.kp, &udt_fork_arm.probed);
	udt_probe(&udt_exit_arm.kp, &udt_exit_arm.probed);

	udt_dir = debugfs_create_dir("unwind_deferred_test", NULL);
	debugfs_create_file("control", 0600, udt_dir, NULL, &udt_control_fops);
	debugfs_create_file("records", 0400, udt_dir, NULL, &udt_records_fops);
	debugfs_create_file("status", 0400, udt_dir, NULL, &udt_status_fops);
	return 0;
}

static void __exit udt_exit(void)
{
	debugfs_remove_recursive(udt_dir);
	udt_reset();
	if (udt_exit_arm.probed)
		unregister_kprobe(&udt_exit_arm.kp);
	if (udt_fork_arm.probed)
		unregister_kprobe(&udt_fork_arm.kp);
	if (udt_walk_probed)
		unregister_kprobe(&udt_walk_probe);
	udt_nmi_exit();
}

module_init(udt_init);
module_exit(udt_exit);

MODULE_DESCRIPTION("Test module for deferred user-space stack unwinding");
MODULE_LICENSE("GPL");
