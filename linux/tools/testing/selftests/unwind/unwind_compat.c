// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user-space unwinding of a 32-bit (compat) task: the trace comes
 * back frame by frame, walked with 4-byte words. Built with -m32.
 */
#include "unwind_test.h"

#include "../kselftest_harness.h"

#define MAX_RECS 8

FIXTURE(compat) {
	int fd;
	int id;
};

FIXTURE_SETUP(compat)
{
	self->fd = udt_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s (needs CONFIG_TEST_UNWIND_DEFERRED and debugfs)",
		     UDT_CONTROL, strerror(errno));
	ASSERT_EQ(0, udt_cmd(self->fd, NULL, "reset"));
	self->id = udt_register(self->fd);
	ASSERT_LE(0, self->id);
}

FIXTURE_TEARDOWN(compat)
{
	if (self->fd < 0)
		return;
	udt_cmd(self->fd, NULL, "reset");
	close(self->fd);
}

static void chain_request(struct __test_metadata *_metadata, int fd, int id,
			  const char *ctx)
{
	struct udt_record recs[MAX_RECS];
	char cmd[64], res[UDT_RESULT_MAX];
	struct udt_req req;
	unsigned long ip;

	ASSERT_EQ(4, sizeof(long));
	snprintf(cmd, sizeof(cmd), "request %s:%d", ctx, id);
	ASSERT_EQ((long)strlen(cmd), udt_chain(fd, cmd, &ip));
	ASSERT_LT(0, udt_result(fd, res, sizeof(res)));
	ASSERT_EQ(1, udt_parse_reqs(res, &req, 1));
	ASSERT_EQ(0, req.ret);
	EXPECT_NE(0, req.cookie);

	ASSERT_EQ(1, udt_records(udt_gettid(), id, recs, MAX_RECS));
	EXPECT_EQ(req.cookie, recs[0].cookie);
	EXPECT_STREQ(ctx, recs[0].ctx);
	EXPECT_EQ(0, udt_chain_mismatch(&recs[0], ip)) {
		TH_LOG("nr %u: %#llx (want %#lx) %#llx %#llx %#llx %#llx",
		       recs[0].nr, recs[0].ips[0], ip, recs[0].ips[1],
		       recs[0].ips[2], recs[0].ips[3], recs[0].ips[4]);
	}
}

/* Requested in task context: 32-bit frames, frame by frame. */
TEST_F(compat, chain_frame_by_frame)
{
	chain_request(_metadata, self->fd, self->id, "task");
}

/* Requested from NMI: the same walk. */
TEST_F(compat, chain_frame_by_frame_nmi)
{
	chain_request(_metadata, self->fd, self->id, "nmi");
}

/* Task, IRQ and NMI requests of a compat task: one cookie, one callback. */
TEST_F(compat, task_irq_nmi_one_callback)
{
	struct udt_req reqs[UDT_MAX_REQS];
	struct udt_record recs[MAX_RECS];
	char res[UDT_RESULT_MAX];
	int i;

	ASSERT_EQ(0, udt_cmd(self->fd, res, "request task:%d irq:%d nmi:%d",
			     self->id, self->id, self->id));
	ASSERT_EQ(3, udt_parse_reqs(res, reqs, UDT_MAX_REQS));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(i ? 1 : 0, reqs[i].ret);
		EXPECT_EQ(reqs[0].cookie, reqs[i].cookie);
	}
	ASSERT_EQ(1, udt_records(udt_gettid(), self->id, recs, MAX_RECS));
	EXPECT_STREQ("task,irq,nmi", recs[0].ctx);
}

TEST_HARNESS_MAIN
