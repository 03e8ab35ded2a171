/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda CPU executor on the software NIC: every ordering variant and
 * payload mode delivers the right bytes and CQEs with matching counters;
 * round trip through a second QP; ring and CQ wrap-around; collapsed CQ.
 */
#define _GNU_SOURCE
#include "gda_test_rig.h"

static const struct rig_opts DEFAULT_OPTS = {8, 10, 220, 0};

/* One experiment, checked against the runner's and the engine's counters. */
static void run_checked(uint32_t exp, uint32_t ord, uint32_t payload, uint32_t size,
			const struct rig_opts *o)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	uint64_t iters = 150, warmup = 10, total = iters + warmup;
	struct marrow_gda_config cfg = rig_config(exp, ord, payload, size, iters, warmup);
	uint64_t *samples = calloc(iters, sizeof(*samples));
	const char *what = marrow_gda_ordering_name((int)ord);
	int rc;

	rig_open(&r, o);
	uint64_t w0 = rig_counter(&r, "emu_wqe_rdma_write");
	uint64_t c0 = rig_counter(&r, "emu_cqe_req");
	uint64_t d0 = rig_counter(&r, "emu_doorbells_observed");
	uint64_t i0 = rig_counter(&r, "emu_inline_bytes");
	uint64_t g0 = rig_counter(&r, "emu_gather_bytes");
	uint64_t e0 = rig_counter(&r, "emu_cqe_req_err");

	rc = marrow_gda_cpu_run(&cfg, &r.a.ep, exp == MARROW_GDA_EXP_ROUND_TRIP ? &r.b.ep : NULL, samples, &res);
	CHECK(rc == 0, "%s exp %u payload %u size %u: rc %d %s", what, exp, payload, size, rc, marrow_last_error());
	CHECK(res.status == rc, "status mirrors rc");
	CHECK(res.iters_done == total, "iters_done %llu", (unsigned long long)res.iters_done);
	CHECK(res.posts == total && res.cqes == total && res.doorbells == total,
	      "posts %llu cqes %llu doorbells %llu", (unsigned long long)res.posts,
	      (unsigned long long)res.cqes, (unsigned long long)res.doorbells);
	CHECK(res.payload_errors == 0, "payload errors %llu", (unsigned long long)res.payload_errors);
	for (uint64_t i = 0; i < iters; i++)
		if (samples[i] == 0 || samples[i] > cfg.timeout_ns) {
			CHECK(0, "sample %llu = %llu ns", (unsigned long long)i, (unsigned long long)samples[i]);
			break;
		}
	CHECK(res.timed_ns > 0, "timed span");
	/* The runner's own check aside, look at the bytes ourselves. */
	CHECK(rig_holds_iteration(r.b.inbox, size, total - 1), "%s: destination holds the last iteration", what);
	for (uint32_t j = size; j < size + 8 && j < RIG_BUF; j++)
		if (r.b.inbox[j] != 0) {
			CHECK(0, "byte %u past the %u-byte payload was written", j, size);
			break;
		}
	if (exp == MARROW_GDA_EXP_ROUND_TRIP) {
		CHECK(res.peer_posts == total, "peer posts %llu", (unsigned long long)res.peer_posts);
		CHECK(rig_holds_iteration(r.a.inbox, 8, total - 1), "reply word in A's inbox");
	}
	uint64_t writes = total * (exp == MARROW_GDA_EXP_ROUND_TRIP ? 2 : 1);
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") - w0 == writes, "engine executed every WRITE");
	CHECK(rig_counter(&r, "emu_cqe_req") - c0 == writes, "engine wrote one CQE per WRITE");
	CHECK(rig_counter(&r, "emu_cqe_req_err") == e0, "no error CQE");
	uint64_t db = rig_counter(&r, "emu_doorbells_observed") - d0;
	CHECK(db >= 1 && db <= writes, "doorbells observed %llu is within [1, %llu]", (unsigned long long)db,
	      (unsigned long long)writes);
	if (payload == MARROW_GDA_PAYLOAD_INLINE) {
		CHECK(rig_counter(&r, "emu_inline_bytes") - i0 == writes * size, "inline bytes");
		CHECK(rig_counter(&r, "emu_gather_bytes") == g0, "no gather bytes");
	} else {
		CHECK(rig_counter(&r, "emu_gather_bytes") - g0 == writes * size, "gather bytes");
		CHECK(rig_counter(&r, "emu_inline_bytes") == i0, "no inline bytes");
	}
	rig_close(&r);
	free(samples);
}

int main(void)
{
	/* every variant x payload x {issue, put+completion, round trip} */
	for (uint32_t ord = 0; ord < 7; ord++)
		for (uint32_t p = 0; p < 2; p++)
			for (uint32_t exp = 0; exp < 3; exp++)
				run_checked(exp, ord, p, 8, &DEFAULT_OPTS);
	/* the inline sizes of Fig. 3a of "GPU-Initiated Communication: Dissecting
	 * Down to the Bone", and a long pointer write */
	static const uint32_t sizes[] = {16, 28, 32, 60, 92, 124, 220};
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		run_checked(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_GPU_FENCE, MARROW_GDA_PAYLOAD_INLINE, sizes[i],
			    &DEFAULT_OPTS);
	run_checked(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_FENCE_SYS, MARROW_GDA_PAYLOAD_POINTER, 3000,
		    &DEFAULT_OPTS);
	/* odd sizes: the tail word carries bytes past len that must not land */
	run_checked(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_RELEASE_SYS, MARROW_GDA_PAYLOAD_INLINE, 13,
		    &DEFAULT_OPTS);
	/* 8-WQEBB SQ and 3-WQEBB WQEs: WQEs wrap mid-WQE at the ring end;
	 * 4-entry CQ without overrun-ignore: owner parity flips every 4 CQEs and
	 * the consumer index must be published or the CQ overruns. */
	struct rig_opts small = {3, 2, 124, 0};
	run_checked(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_GPU_FENCE, MARROW_GDA_PAYLOAD_INLINE, 124, &small);
	run_checked(MARROW_GDA_EXP_ROUND_TRIP, GDA_ORD_RELEASE_SYS, MARROW_GDA_PAYLOAD_INLINE, 8, &small);
	/* collapsed CQ: completion by wqe_counter, owner bit not used */
	struct rig_opts cc = {4, 2, 64, MARROW_EMU_CQ_COLLAPSED | MARROW_EMU_CQ_OVERRUN_IGNORE};
	run_checked(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_THREADFENCE, MARROW_GDA_PAYLOAD_INLINE, 8, &cc);
	run_checked(MARROW_GDA_EXP_ISSUE, GDA_ORD_NONE, MARROW_GDA_PAYLOAD_POINTER, 64, &cc);

	if (g_failures) {
		fprintf(stderr, "test_gda_cpu: %d failure(s)\n", g_failures);
		return 1;
	}
	printf("test_gda_cpu: ok\n");
	return 0;
}
