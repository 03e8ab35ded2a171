/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda pipelined goodput on the CPU (marrow_gda_goodput_cpu_run) over
 * the software NIC: windows of pointer WRITEs deliver every slot's bytes,
 * the CQE and doorbell counts follow the signaling rule, the engine's
 * counters agree; under a wire model the timed span is never shorter than
 * the port needs for the timed bytes; bad configurations are refused
 * before anything is posted; a paused engine times out with a message.
 * Two QPs (A's and B's, one engine thread): the round-robin window over
 * both delivers every slice, per-QP signaling, and the port model still
 * bounds the pair (one port, not one per QP).
 */
#define _GNU_SOURCE
#include "gda_test_rig.h"
#include "marrow/marrow_gda_goodput.h"

static const struct rig_opts OPTS = {8, 10, 64, 0};

static struct marrow_gda_goodput_config gp_config(uint32_t ord, uint32_t size, uint32_t window, uint32_t sig,
						  uint64_t messages, uint64_t warmup)
{
	struct marrow_gda_goodput_config c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.ordering = ord;
	c.msg_size = size;
	c.window = window;
	c.signal_every = sig;
	c.messages = messages;
	c.warmup = warmup;
	c.timeout_ns = 5000000000ull;
	return c;
}

static uint64_t expected_cqes(uint64_t total, uint64_t warmup, uint32_t sig)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < total; i++)
		n += (i + 1) % sig == 0 || i + 1 == total || i + 1 == warmup;
	return n;
}

static void run_ok(uint32_t ord, uint32_t size, uint32_t window, uint32_t sig)
{
	struct rig r;
	struct marrow_gda_goodput_result res = {.size = sizeof(res)};
	const uint64_t messages = 3000, warmup = 100, total = messages + warmup;
	struct marrow_gda_goodput_config c = gp_config(ord, size, window, sig, messages, warmup);
	int rc;

	rig_open(&r, &OPTS);
	uint64_t w0 = rig_counter(&r, "emu_wqe_rdma_write"), g0 = rig_counter(&r, "emu_gather_bytes");
	uint64_t c0 = rig_counter(&r, "emu_cqe_req");

	rc = marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res);
	CHECK(rc == MARROW_OK, "%s size %u window %u sig %u: rc %d %s", marrow_gda_ordering_name((int)ord), size,
	      window, sig, rc, marrow_last_error());
	CHECK(res.status == rc, "status %d != rc %d", res.status, rc);
	CHECK(res.messages_done == total, "done %llu", (unsigned long long)res.messages_done);
	CHECK(res.doorbells == total, "doorbells %llu", (unsigned long long)res.doorbells);
	CHECK(res.cqes == expected_cqes(total, warmup, sig), "cqes %llu, expected %llu",
	      (unsigned long long)res.cqes, (unsigned long long)expected_cqes(total, warmup, sig));
	CHECK(res.timed_bytes == messages * size && res.timed_ns > 0, "timed %llu B in %llu ns",
	      (unsigned long long)res.timed_bytes, (unsigned long long)res.timed_ns);
	CHECK(res.payload_errors == 0 && res.slots == RIG_BUF / size, "errors %llu slots %u",
	      (unsigned long long)res.payload_errors, res.slots);
	/* The destination really holds the source bytes (checked here too). */
	CHECK(memcmp(r.a.src, r.b.inbox, (size_t)res.slots * size) == 0, "destination differs from source");
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") - w0 == total, "engine WRITEs");
	CHECK(rig_counter(&r, "emu_gather_bytes") - g0 == total * size, "engine gather bytes");
	CHECK(rig_counter(&r, "emu_cqe_req") - c0 == res.cqes, "engine CQEs");
	/* A second run on the same QP resumes from the DBR. */
	rc = marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res);
	CHECK(rc == MARROW_OK && res.payload_errors == 0, "second run: rc %d %s", rc, marrow_last_error());
	rig_close(&r);
}

static void wire_bounds_goodput(void)
{
	struct rig r;
	struct marrow_gda_goodput_result res = {.size = sizeof(res)};
	struct marrow_gda_goodput_config c = gp_config(GDA_ORD_GPU_FENCE, 2048, 64, 16, 2000, 64);
	struct marrow_emu_wire_model m;
	uint64_t need_ps;
	int rc;

	rig_open(&r, &OPTS);
	REQUIRE_OK(marrow_emu_wire_ib_defaults(&m, 10000000000ull));   /* 10 Gb/s */
	REQUIRE_OK(marrow_emu_device_set_wire(r.dev, &m));
	rc = marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res);
	CHECK(rc == MARROW_OK, "wire run: %d %s", rc, marrow_last_error());
	/* The last timed CQE cannot come before the port sent the timed bytes
	 * (minus the one message that may have been on the wire at t0). */
	need_ps = (c.messages - 1) * marrow_emu_wire_time_ps(&m, c.msg_size, 0);
	CHECK(res.timed_ns * 1000 >= need_ps, "timed %llu ns < port time %llu ns", (unsigned long long)res.timed_ns,
	      (unsigned long long)(need_ps / 1000));
	printf("  ok 2 KiB at 10 Gb/s: %.3f GB/s (line %.3f GB/s of payload)\n",
	       (double)res.timed_bytes / res.timed_ns, 2048.0 * 1e12 / marrow_emu_wire_time_ps(&m, 2048, 0) / 1e9);
	REQUIRE_OK(marrow_emu_device_set_wire(r.dev, NULL));
	rig_close(&r);
}

/* ep[0] = A's QP, ep[1] = B's QP naming A's source and B's inbox too. */
static void two_qp_endpoints(struct rig *r, struct marrow_gda_endpoint ep[2])
{
	ep[0] = r->a.ep;
	ep[1] = r->b.ep;
	ep[1].local_addr = r->a.ep.local_addr;
	ep[1].local_len = r->a.ep.local_len;
	ep[1].lkey = r->a.ep.lkey;
	ep[1].remote_addr = r->a.ep.remote_addr;
	ep[1].remote_len = r->a.ep.remote_len;
	ep[1].rkey = r->a.ep.rkey;
}

static void two_qps(uint32_t size, uint32_t window, uint32_t sig, uint64_t messages, uint64_t warmup)
{
	struct rig r;
	struct marrow_gda_endpoint ep[2];
	struct marrow_gda_goodput_result res = {.size = sizeof(res)};
	struct marrow_gda_goodput_config c = gp_config(GDA_ORD_RELEASE_SYS, size, window, sig, messages, warmup);
	const uint64_t total = messages + warmup;
	uint64_t cqes = 0, w0, c0;
	int rc;

	rig_open(&r, &OPTS);
	two_qp_endpoints(&r, ep);
	c.qps = 2;
	w0 = rig_counter(&r, "emu_wqe_rdma_write");
	c0 = rig_counter(&r, "emu_cqe_req");
	rc = marrow_gda_goodput_cpu_run(&c, ep, &res);
	CHECK(rc == MARROW_OK, "2 QPs size %u: rc %d %s", size, rc, marrow_last_error());
	for (uint32_t q = 0; q < 2; q++)
		cqes += expected_cqes(total / 2 + (q < total % 2), warmup / 2 + (q < warmup % 2), sig);
	CHECK(res.messages_done == total && res.doorbells == total, "done %llu doorbells %llu",
	      (unsigned long long)res.messages_done, (unsigned long long)res.doorbells);
	CHECK(res.cqes == cqes, "cqes %llu, expected %llu", (unsigned long long)res.cqes, (unsigned long long)cqes);
	CHECK(res.payload_errors == 0 && res.slots == (RIG_BUF / size) / 2 * 2, "errors %llu slots %u",
	      (unsigned long long)res.payload_errors, res.slots);
	CHECK(memcmp(r.a.src, r.b.inbox, (size_t)res.slots * size) == 0, "destination differs from source");
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") - w0 == total, "engine WRITEs");
	CHECK(rig_counter(&r, "emu_cqe_req") - c0 == res.cqes, "engine CQEs");
	rig_close(&r);
}

static void two_qps_share_the_port(void)
{
	struct rig r;
	struct marrow_gda_endpoint ep[2];
	struct marrow_gda_goodput_result res = {.size = sizeof(res)};
	struct marrow_gda_goodput_config c = gp_config(GDA_ORD_GPU_FENCE, 1024, 32, 8, 2000, 64);
	struct marrow_emu_wire_model m;
	uint64_t need_ps;
	int rc;

	rig_open(&r, &OPTS);
	two_qp_endpoints(&r, ep);
	c.qps = 2;
	REQUIRE_OK(marrow_emu_wire_ib_defaults(&m, 10000000000ull));   /* 10 Gb/s */
	REQUIRE_OK(marrow_emu_device_set_wire(r.dev, &m));
	rc = marrow_gda_goodput_cpu_run(&c, ep, &res);
	CHECK(rc == MARROW_OK, "2-QP wire run: %d %s", rc, marrow_last_error());
	/* Both QPs' timed bytes left through ONE port (a message per QP may
	 * have been on the wire at t0). */
	need_ps = (c.messages - 2) * marrow_emu_wire_time_ps(&m, c.msg_size, 0);
	CHECK(res.timed_ns * 1000 >= need_ps, "2 QPs: timed %llu ns < one port's time %llu ns",
	      (unsigned long long)res.timed_ns, (unsigned long long)(need_ps / 1000));
	REQUIRE_OK(marrow_emu_device_set_wire(r.dev, NULL));
	rig_close(&r);
}

static void two_qp_refusals(void)
{
	struct rig r;
	struct marrow_gda_endpoint ep[2];
	struct marrow_gda_goodput_result res = {.size = sizeof(res)};
	struct marrow_gda_goodput_config c = gp_config(GDA_ORD_GPU_FENCE, 8, 16, 4, 10, 0);
	uint64_t w0;

	rig_open(&r, &OPTS);
	w0 = rig_counter(&r, "emu_wqe_rdma_write");
	two_qp_endpoints(&r, ep);
	c.qps = MARROW_GDA_GOODPUT_MAX_QPS + 1;
	CHECK(marrow_gda_goodput_cpu_run(&c, ep, &res) == MARROW_EINVAL, "qps above the maximum");
	c.qps = 2;
	ep[1].remote_addr = r.b.ep.remote_addr;   /* B's view: A's inbox */
	ep[1].rkey = r.b.ep.rkey;
	CHECK(marrow_gda_goodput_cpu_run(&c, ep, &res) == MARROW_EINVAL, "endpoints naming other buffers");
	CHECK(strstr(marrow_last_error(), "endpoint 1") != NULL, "message: %s", marrow_last_error());
	two_qp_endpoints(&r, ep);
	c = gp_config(GDA_ORD_GPU_FENCE, RIG_BUF, 16, 4, 10, 0);   /* one slot, two QPs */
	c.qps = 2;
	CHECK(marrow_gda_goodput_cpu_run(&c, ep, &res) == MARROW_EINVAL, "fewer slots than QPs");
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") == w0, "a refused run posted something");
	rig_close(&r);
}

static void refusals(void)
{
	struct rig r;
	struct marrow_gda_goodput_result res = {.size = sizeof(res)};
	struct marrow_gda_goodput_config c;
	uint64_t w0;

	rig_open(&r, &OPTS);
	w0 = rig_counter(&r, "emu_wqe_rdma_write");
	c = gp_config(GDA_ORD_GPU_FENCE, 8, 512, 16, 10, 0);   /* SQ has 256 WQEBBs */
	CHECK(marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res) == MARROW_EINVAL, "window > SQ");
	c = gp_config(GDA_ORD_GPU_FENCE, 8, 16, 32, 10, 0);
	CHECK(marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res) == MARROW_EINVAL, "signal_every > window");
	c = gp_config(GDA_ORD_GPU_FENCE, 8, 256, 1, 10, 0);    /* 256 CQEs outstanding */
	r.a.cqv.cqe_cnt = 128;                                 /* a view claiming a small CQ */
	CHECK(marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res) == MARROW_EINVAL, "CQ too small");
	r.a.cqv.cqe_cnt = 1024;
	c = gp_config(GDA_ORD_GPU_FENCE, RIG_BUF + 1, 16, 4, 10, 0);
	CHECK(marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res) == MARROW_EINVAL, "msg_size > buffer");
	c = gp_config(9, 8, 16, 4, 10, 0);
	CHECK(marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res) == MARROW_EINVAL, "bad ordering");
	CHECK(marrow_last_error()[0] != '\0', "no message");
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") == w0, "a refused run posted something");
	/* Paused engine: bounded wait, message names the message and window. */
	c = gp_config(GDA_ORD_GPU_FENCE, 8, 16, 4, 100, 0);
	c.timeout_ns = 50000000ull;
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 1));
	CHECK(marrow_gda_goodput_cpu_run(&c, &r.a.ep, &res) == MARROW_ETIMEDOUT, "paused: %s", marrow_last_error());
	CHECK(strstr(marrow_last_error(), "window 16") != NULL, "message: %s", marrow_last_error());
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 0));
	rig_close(&r);
}

int main(void)
{
	run_ok(GDA_ORD_GPU_FENCE, 8, 64, 16);
	run_ok(GDA_ORD_FENCE_SYS, 1000, 128, 32);
	run_ok(GDA_ORD_RELEASE_SYS, 4096, 16, 16);
	run_ok(GDA_ORD_THREADFENCE, 100, 1, 1);
	wire_bounds_goodput();
	refusals();
	two_qps(8, 64, 16, 3001, 101);
	two_qps(512, 16, 16, 2000, 0);
	two_qps(100, 1, 1, 999, 7);
	two_qps_share_the_port();
	two_qp_refusals();
	if (g_failures) {
		fprintf(stderr, "test_gda_goodput: %d check(s) failed\n", g_failures);
		return 1;
	}
	(void)rig_config;   /* rig helpers this test does not need */
	(void)rig_holds_iteration;
	printf("test_gda_goodput: all checks passed\n");
	return 0;
}
