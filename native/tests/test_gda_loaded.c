/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda loaded round trip on the CPU (marrow_gda_loaded_cpu_run) over the
 * software NIC: probes complete with or without background streams, on a
 * shared QP and on reserved QPs; every background destination slot holds
 * the last value its stream sent; pacing never posts faster than asked;
 * bad configurations are refused before any thread starts.
 */
#define _GNU_SOURCE
#include "gda_test_rig.h"
#include "marrow/marrow_gda_loaded.h"

static const struct rig_opts OPTS = {8, 10, 64, 0};

struct bgq {
	struct marrow_emu_cq *cq;
	struct marrow_emu_qp *qp;
	struct marrow_cq_view cqv;
	struct marrow_qp_view qpv;
};

static void bgq_open(struct rig *r, struct bgq *q, struct marrow_gda_endpoint *ep)
{
	struct marrow_emu_cq_attr ca = {sizeof(ca), 0, 8, 0};
	struct marrow_emu_qp_attr qa;

	memset(q, 0, sizeof(*q));
	q->cqv.size = sizeof(q->cqv);
	REQUIRE_OK(marrow_emu_cq_create(r->dev, &ca, &q->cq, &q->cqv));
	memset(&qa, 0, sizeof(qa));
	qa.size = sizeof(qa);
	qa.send_cq = q->cq;
	qa.log_sq_wqebb_cnt = 7;
	qa.max_rq_sge = 1;
	qa.max_inline_data = 64;
	qa.access = MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE;
	q->qpv.size = sizeof(q->qpv);
	REQUIRE_OK(marrow_emu_qp_create(r->pd, &qa, &q->qp, &q->qpv));
	REQUIRE_OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_INIT, 0));
	REQUIRE_OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_RTR, q->qpv.qpn));   /* loops back to itself */
	REQUIRE_OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_RTS, 0));
	memset(ep, 0, sizeof(*ep));
	ep->size = sizeof(*ep);
	ep->qp = &q->qpv;
	ep->cq = &q->cqv;
}

static struct marrow_gda_loaded_config cfg_of(uint32_t queue, uint32_t streams, uint64_t pace, uint8_t *dst,
					      uint32_t dst_key)
{
	struct marrow_gda_loaded_config c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.ordering = GDA_ORD_RELEASE_SYS;
	c.queue = queue;
	c.bg_streams = streams;
	c.bg_window = 64;
	c.bg_signal_every = 16;
	c.pace_msgs_per_s = pace;
	c.iters = 60;
	c.warmup = 6;
	c.timeout_ns = 30000000000ull;   /* a busy 2-core CI machine can starve a thread for seconds */
	c.bg_dst_addr = (uint64_t)(uintptr_t)dst;
	c.bg_dst_len = 8 * MARROW_GDA_LOADED_SLOTS * 4;
	c.bg_dst_rkey = dst_key;
	return c;
}

int main(void)
{
	struct rig r;
	struct bgq q[3];
	struct marrow_gda_endpoint eps[3];
	struct marrow_emu_mr *dst_mr;
	uint32_t dst_key, k;
	uint8_t *dst = aligned_alloc(4096, 8192);
	uint64_t samples[60];
	struct marrow_gda_loaded_result res = {.size = sizeof(res)};
	struct marrow_gda_loaded_config c;
	int rc;

	rig_open(&r, &OPTS);
	memset(dst, 0, 8192);
	REQUIRE_OK(marrow_emu_mr_reg(r.pd, dst, 8192, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dst_mr,
				     &k, &dst_key));
	for (int i = 0; i < 3; i++)
		bgq_open(&r, &q[i], &eps[i]);

	/* Idle, then shared and reserved with two streams each, then paced;
	 * run 4: reserved, signal every 64th WQE, so a stream's drain pads with
	 * up to 63 of its next messages (each must land in its own slot). */
	for (int run = 0; run < 5; run++) {
		uint32_t streams = run == 0 ? 0 : 2;
		uint32_t queue = run >= 2 ? MARROW_GDA_LOADED_RESERVED : MARROW_GDA_LOADED_SHARED;
		uint64_t pace = run == 3 ? 20000 : 0;

		c = cfg_of(queue, streams, pace, dst, dst_key);
		if (run == 4)
			c.bg_signal_every = 64;
		memset(samples, 0, sizeof(samples));
		uint64_t w0 = rig_counter(&r, "emu_wqe_rdma_write");
		rc = marrow_gda_loaded_cpu_run(&c, &r.a.ep, &r.b.ep, queue ? eps : NULL, samples, &res);
		CHECK(rc == MARROW_OK, "run %d: rc %d %s", run, rc, marrow_last_error());
		CHECK(res.probes_done == c.iters + c.warmup, "run %d: probes %llu", run, (unsigned long long)res.probes_done);
		CHECK(samples[0] > 0 && samples[59] > 0 && res.timed_ns >= samples[0], "run %d: samples", run);
		/* probe + reply per round trip, every background WRITE, probe-QP pads */
		CHECK(rig_counter(&r, "emu_wqe_rdma_write") - w0 >= res.bg_posted + 2 * res.probes_done,
		      "run %d: the engine executed fewer WRITEs than were posted", run);
		CHECK(res.bg_slot_errors == 0 && res.probe_errors == 0, "run %d: slot errors %llu", run,
		      (unsigned long long)res.bg_slot_errors);
		if (streams) {
			CHECK(res.bg_posted > 0, "run %d: no background WRITE", run);
			/* the slots really hold background values (a stream the scheduler never ran
			 * before the probes ended posted nothing; one of the two did post) */
			CHECK(((uint64_t *)dst)[0] != 0 || ((uint64_t *)dst)[MARROW_GDA_LOADED_SLOTS] != 0,
			      "run %d: background slots empty", run);
		} else {
			CHECK(res.bg_posted == 0 && res.bg_in_window == 0, "idle run posted background");
		}
		if (pace) {
			/* Each stream leaves at least streams / pace between two posts. */
			uint64_t interval = streams * 1000000000ull / pace;
			uint64_t most = streams * (res.timed_ns / interval + 2);

			CHECK(res.bg_in_window <= most, "paced: %llu in %llu ns > %llu", (unsigned long long)res.bg_in_window,
			      (unsigned long long)res.timed_ns, (unsigned long long)most);
		}
		printf("  ok run %d (%s, %u streams, pace %llu): p0 %llu ns, bg %llu posted, %llu in window\n", run,
		       queue ? "reserved" : "shared", streams, (unsigned long long)pace, (unsigned long long)samples[30],
		       (unsigned long long)res.bg_posted, (unsigned long long)res.bg_in_window);
	}

	/* Refusals, before any thread starts. */
	c = cfg_of(MARROW_GDA_LOADED_RESERVED, 2, 0, dst, dst_key);
	CHECK(marrow_gda_loaded_cpu_run(&c, &r.a.ep, &r.b.ep, NULL, samples, &res) == MARROW_EINVAL, "reserved, no eps");
	c.bg_window = 1024;   /* > the 128-WQEBB background SQs */
	CHECK(marrow_gda_loaded_cpu_run(&c, &r.a.ep, &r.b.ep, eps, samples, &res) == MARROW_EINVAL, "window > SQ");
	c = cfg_of(MARROW_GDA_LOADED_SHARED, 5, 0, dst, dst_key);   /* destination holds 4 streams */
	CHECK(marrow_gda_loaded_cpu_run(&c, &r.a.ep, &r.b.ep, NULL, samples, &res) == MARROW_EINVAL, "dst too small");
	CHECK(strstr(marrow_last_error(), "background destination") != NULL, "message: %s", marrow_last_error());

	for (int i = 0; i < 3; i++) {
		REQUIRE_OK(marrow_emu_qp_destroy(q[i].qp));
		REQUIRE_OK(marrow_emu_cq_destroy(q[i].cq));
	}
	REQUIRE_OK(marrow_emu_mr_dereg(dst_mr));
	rig_close(&r);
	free(dst);
	(void)rig_config;
	(void)rig_holds_iteration;
	if (g_failures) {
		fprintf(stderr, "test_gda_loaded: %d check(s) failed\n", g_failures);
		return 1;
	}
	printf("test_gda_loaded: all checks passed\n");
	return 0;
}
