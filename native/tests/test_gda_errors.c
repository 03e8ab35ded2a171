/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda error paths on the CPU executor: a lost doorbell (engine paused)
 * ends in MARROW_ETIMEDOUT within the budget, not a hang; inline beyond the
 * QP maximum, placement gpu and bad round-trip sizes are rejected before
 * anything is posted, with a message that says what to do.
 */
#define _GNU_SOURCE
#include <time.h>
#include "gda_test_rig.h"

static const struct rig_opts OPTS = {8, 10, 64, 0};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void lost_doorbell_times_out(uint32_t exp)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(exp, GDA_ORD_FENCE_SYS, MARROW_GDA_PAYLOAD_INLINE, 8, 10, 0);
	uint64_t samples[10];

	cfg.timeout_ns = 100000000ull; /* 100 ms */
	rig_open(&r, &OPTS);
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 1));
	uint64_t t0 = now_ms();
	int rc = marrow_gda_cpu_run(&cfg, &r.a.ep, exp == MARROW_GDA_EXP_ROUND_TRIP ? &r.b.ep : NULL, samples, &res);
	uint64_t took = now_ms() - t0;
	CHECK(rc == MARROW_ETIMEDOUT, "exp %u: rc %d (%s)", exp, rc, marrow_last_error());
	CHECK(res.status == MARROW_ETIMEDOUT, "status %d", res.status);
	CHECK(res.fail_iter == 0, "failed in the first iteration, got %u", res.fail_iter);
	CHECK(res.cqes == 0 && res.posts == 1, "one post, no CQE (posts %llu cqes %llu)",
	      (unsigned long long)res.posts, (unsigned long long)res.cqes);
	CHECK(strstr(marrow_last_error(), "timed out") != NULL, "message: %s", marrow_last_error());
	CHECK(took < 3000, "returned after %llu ms, budget was 100 ms per wait", (unsigned long long)took);
	/* Resumed, the engine finds the WQE that was posted: the doorbell
	 * record was written, only nobody looked. */
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 0));
	for (int i = 0; i < 5000 && rig_counter(&r, "emu_cqe_req") == 0; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	CHECK(rig_counter(&r, "emu_cqe_req") >= 1, "the posted WQE completes after resume");
	CHECK(rig_holds_iteration(r.b.inbox, 8, 0), "and delivers iteration 0's bytes");
	rig_close(&r);
}

static void inline_beyond_max_is_rejected(void)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_GPU_FENCE,
						  MARROW_GDA_PAYLOAD_INLINE, 65, 10, 0);
	uint64_t samples[10];

	rig_open(&r, &OPTS);
	uint32_t dbr_before = r.a.qpv.dbrec[MX_DBR_SND];
	int rc = marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res);
	CHECK(rc == MARROW_ERANGE, "rc %d", rc);
	CHECK(strstr(marrow_last_error(), "max_inline_data 64") != NULL &&
	      strstr(marrow_last_error(), "pointer") != NULL, "message: %s", marrow_last_error());
	CHECK(res.posts == 0 && r.a.qpv.dbrec[MX_DBR_SND] == dbr_before, "nothing was posted");
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") == 0, "the engine saw no WRITE");
	/* exactly the maximum is fine, and pointer mode takes any size */
	cfg.msg_size = 64;
	CHECK(marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res) == 0, "64 bytes inline: %s", marrow_last_error());
	cfg.msg_size = 65;
	cfg.payload = MARROW_GDA_PAYLOAD_POINTER;
	CHECK(marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res) == 0, "65 bytes pointer: %s", marrow_last_error());
	rig_close(&r);
}

static void bad_configurations_are_rejected(void)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(MARROW_GDA_EXP_ISSUE, GDA_ORD_NONE, MARROW_GDA_PAYLOAD_INLINE, 8, 4, 0);
	uint64_t samples[4];
	int rc;

	rig_open(&r, &OPTS);
	r.a.ep.placement = MARROW_GDA_PLACEMENT_GPU;
	rc = marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && strstr(marrow_last_error(), "GPU memory") != NULL &&
	      strstr(marrow_last_error(), "--target cuda") != NULL && res.status == MARROW_EINVAL,
	      "placement gpu on the CPU runner: rc %d %s", rc, marrow_last_error());
	r.a.ep.placement = MARROW_GDA_PLACEMENT_HOST;

	cfg.ordering = 7;
	CHECK(marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res) == MARROW_EINVAL, "ordering 7");
	cfg.ordering = GDA_ORD_NONE;

	cfg.experiment = MARROW_GDA_EXP_ROUND_TRIP;
	cfg.msg_size = 16;
	rc = marrow_gda_cpu_run(&cfg, &r.a.ep, &r.b.ep, samples, &res);
	CHECK(rc == MARROW_EINVAL && strstr(marrow_last_error(), "size must be 8") != NULL,
	      "round trip with 16 bytes: %d %s", rc, marrow_last_error());
	cfg.msg_size = 8;
	rc = marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && strstr(marrow_last_error(), "peer") != NULL, "round trip without peer: %s",
	      marrow_last_error());

	cfg.experiment = MARROW_GDA_EXP_PUT_COMPLETION;
	cfg.payload = MARROW_GDA_PAYLOAD_POINTER;
	cfg.msg_size = RIG_BUF + 1;
	CHECK(marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res) == MARROW_EINVAL, "source too small");
	CHECK(marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, NULL, &res) == MARROW_EINVAL, "NULL samples");
	res.size = 8;
	CHECK(marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res) == MARROW_EINVAL, "small result struct");
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") == 0, "no rejected configuration posted anything");
	rig_close(&r);
}

/* An error CQE must come back as MARROW_EIO with the syndrome, never be
 * taken for "not yet": a wrong rkey gives REMOTE_ACCESS. */
static void error_cqe_is_reported(void)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_GPU_FENCE,
						  MARROW_GDA_PAYLOAD_INLINE, 8, 4, 0);
	uint64_t samples[4];

	cfg.timeout_ns = 2000000000ull;
	rig_open(&r, &OPTS);
	r.a.ep.rkey ^= 0x5a5a00u;
	int rc = marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res);
	CHECK(rc == MARROW_EIO, "rc %d (%s)", rc, marrow_last_error());
	CHECK(res.cqe_opcode == MX_CQE_REQ_ERR && res.cqe_syndrome == MX_SYND_REMOTE_ACCESS,
	      "opcode %u syndrome 0x%x", res.cqe_opcode, res.cqe_syndrome);
	CHECK(strstr(marrow_last_error(), "syndrome 0x13") != NULL, "message: %s", marrow_last_error());
	rig_close(&r);
}

int main(void)
{
	lost_doorbell_times_out(MARROW_GDA_EXP_PUT_COMPLETION);
	lost_doorbell_times_out(MARROW_GDA_EXP_ISSUE);
	lost_doorbell_times_out(MARROW_GDA_EXP_ROUND_TRIP);
	inline_beyond_max_is_rejected();
	bad_configurations_are_rejected();
	error_cqe_is_reported();
	if (g_failures) {
		fprintf(stderr, "test_gda_errors: %d failure(s)\n", g_failures);
		return 1;
	}
	printf("test_gda_errors: ok\n");
	return 0;
}
