/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The benchmark producer (emu_producer.h) and one engine thread's poll run
 * in lock step on one thread: post a batch of 8-byte inline WRITEs, ring,
 * let the engine poll the QP once, consume the CQE. Nothing depends on
 * timing, so every counter is exact and the instruction count per message
 * is repeatable, which is what the per-WQE path is tuned with
 * (docs/design/software-nic.md §5):
 *
 *   valgrind --tool=callgrind --toggle-collect=drive \
 *     native/target/cmake/test_softnic_step 200000 16 [per_poll]
 *
 * then divide the collected instructions by the message count
 * (callgrind_annotate splits them into engine and producer functions).
 * per_poll (default 1) batches are posted before each engine poll: 16 x 16
 * is the rate benchmark's steady state on a many-core host, where the
 * engine lags and each pass takes a full shadow of 256 WQEBBs (and 16
 * CQEs). Without arguments it runs batch 1 and 16, then 16 batches of 16
 * per poll, and checks the counters.
 */
#include "emu_test_util.h"

#include "softnic/emu_producer.h"

/* One step per batch; returns the messages completed. Not inlined so that
 * callgrind can collect exactly this loop. */
__attribute__((noinline)) static uint64_t drive(struct bench *b, struct emu_thread *t,
						struct marrow_emu_qp *qp, uint64_t messages,
						uint32_t batch, uint32_t per_poll)
{
	uint64_t posted = 0;

	while (posted < messages) {
		int r;

		for (uint32_t j = 0; j < per_poll && posted < messages; j++) {
			uint32_t k = messages - posted < batch ? (uint32_t)(messages - posted) : batch;

			post_batch(b, k);
			posted += k;
		}
		emu_qp_poll(t, qp);
		while ((r = poll_one(b)) > 0)
			;
		if (r < 0 || b->completed != posted)
			break;   /* lock step: the batch must be complete now */
	}
	return b->completed;
}

static void run(struct marrow_emu_device *dev, struct marrow_emu_qp *qp, struct marrow_emu_cq *cq,
		uint64_t src, uint32_t lkey, uint64_t dst, uint32_t rkey, uint64_t messages,
		uint32_t batch, uint32_t per_poll)
{
	struct emu_thread *t = &dev->threads[qp->thread];
	uint64_t batches = (messages + batch - 1) / batch;
	uint64_t polls = (batches + per_poll - 1) / per_poll;
	struct t_ctrs c0 = t_counters(dev), c1;
	struct bench b;
	uint64_t done;

	OK(emu_bench_setup(&b, "test_softnic_step", qp, cq, 8, batch, src, lkey, dst, rkey,
			   1000000000ull));
	done = drive(&b, t, qp, messages, batch, per_poll);
	CHECK(done == messages, "batch %u: %llu of %llu messages completed in lock step: %s", batch,
	      (unsigned long long)done, (unsigned long long)messages, marrow_last_error());
	/* No settling: a poller that has seen a CQE sees counters including it. */
	c1 = t_counters(dev);
	CHECK(b.cqes == batches && b.doorbells == batches, "batch %u: %llu CQEs, %llu doorbells", batch,
	      (unsigned long long)b.cqes, (unsigned long long)b.doorbells);
	/* The slot keeps the last of a poll's doorbells; one advance each. */
	CHECK_DELTA(c0, c1, doorbells_observed, polls);
	CHECK_DELTA(c0, c1, dbrec_advances, polls);
	CHECK_DELTA(c0, c1, wqebb_fetched, messages);
	CHECK_DELTA(c0, c1, wqe_rdma_write, messages);
	CHECK_DELTA(c0, c1, inline_bytes, 8 * messages);
	CHECK_DELTA(c0, c1, payload_bytes_tx, 8 * messages);
	CHECK_DELTA(c0, c1, payload_bytes_rx, 8 * messages);
	CHECK_DELTA(c0, c1, cqe_req, batches);
	CHECK_DELTA(c0, c1, cqe_req_err, 0);
	CHECK_DELTA(c0, c1, wqe_sanity_fail, 0);
	printf("batch %2u x %2u per poll: %llu messages, %llu doorbells, %llu CQEs in lock step\n",
	       batch, per_poll, (unsigned long long)messages, (unsigned long long)batches,
	       (unsigned long long)b.cqes);
}

int main(int argc, char **argv)
{
	uint64_t messages = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000;
	uint32_t only_batch = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 0;
	uint32_t per_poll = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 1;
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_HOT, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *smr, *dmr;
	uint32_t lkey, rkey;
	uint8_t *src = t_alloc(4096, 0x5a), *dst = t_alloc(4096, 0);
	struct t_cq cq;
	struct t_qp qp;

	REQUIRE(messages > 0, "messages must be >= 1");
	/* Lock step needs one poll to take everything posted: the shadow. */
	REQUIRE(per_poll >= 1 && (uint64_t)per_poll * (only_batch ? only_batch : 16) <= EMU_SHADOW_MAX,
		"per_poll x batch must be 1..%d WQEBBs", EMU_SHADOW_MAX);
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 4096, MARROW_ACCESS_LOCAL_WRITE, &smr, &lkey, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dmr,
			     NULL, &rkey));
	/* As the benchmark rig: CQ of 2^16 entries without oi, SQ of 1024 WQEBBs. */
	t_cq_create(dev, 16, 0, &cq);
	t_qp_create(pd, &cq, 10, 64, &qp);
	t_connect(&qp, qp.v.qpn);
	/* The engine thread parks; this thread plays it from now on. */
	OK(marrow_emu_engine_pause(dev, 1));
	if (only_batch) {
		run(dev, qp.qp, cq.cq, (uint64_t)(uintptr_t)src, lkey, (uint64_t)(uintptr_t)dst, rkey,
		    messages, only_batch, per_poll);
	} else {
		run(dev, qp.qp, cq.cq, (uint64_t)(uintptr_t)src, lkey, (uint64_t)(uintptr_t)dst, rkey,
		    messages, 1, 1);
		run(dev, qp.qp, cq.cq, (uint64_t)(uintptr_t)src, lkey, (uint64_t)(uintptr_t)dst, rkey,
		    messages, 16, 1);
		run(dev, qp.qp, cq.cq, (uint64_t)(uintptr_t)src, lkey, (uint64_t)(uintptr_t)dst, rkey,
		    messages, 16, 16);
	}
	CHECK(memcmp(dst, src, 8) == 0, "payload did not land");
	OK(marrow_emu_engine_pause(dev, 0));

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	free(dst);
	return t_finish("test_softnic_step");
}
