/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Engine pause: while paused no doorbell is observed, so a producer's
 * bounded wait ends in ETIMEDOUT (a lost doorbell is visible as a timeout,
 * not a hang); after resume the posted work completes and the benchmarks
 * run again.
 */
#include "emu_test_util.h"

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *smr, *dmr;
	uint32_t lkey, rkey;
	struct t_cq cq;
	struct t_qp qp;
	uint8_t *src = t_alloc(4096, 0x3c), *dst = t_alloc(4096, 0);
	struct marrow_emu_bench_result res;
	struct t_ctrs c0, c1;
	uint64_t samples[100];
	const uint64_t ms = 1000000;

	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 4096, MARROW_ACCESS_LOCAL_WRITE, &smr, &lkey, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dmr,
			     NULL, &rkey));
	t_cq_create(dev, 8, 0, &cq);
	t_qp_create(pd, &cq, 8, 64, &qp);
	t_connect(&qp, qp.v.qpn);

	OK(marrow_emu_bench_rate(qp.qp, cq.cq, 8, 16, 10000, 1000, (uint64_t)(uintptr_t)src, lkey,
				 (uint64_t)(uintptr_t)dst, rkey, 1000 * ms, &res));
	CHECK(res.messages == 10000 && res.cqes == 625 && res.doorbells == 625,
	      "rate: %llu messages, %llu CQEs, %llu doorbells", (unsigned long long)res.messages,
	      (unsigned long long)res.cqes, (unsigned long long)res.doorbells);
	CHECK(res.size == sizeof(res) && res.elapsed_ns > 0, "result header");

	/* Paused: the producer's doorbell goes unobserved. */
	OK(marrow_emu_engine_pause(dev, 1));
	c0 = t_counters(dev);
	uint64_t t0 = t_now_ns();

	FAILS(MARROW_ETIMEDOUT, marrow_emu_bench_rate(qp.qp, cq.cq, 8, 16, 1000, 0,
						      (uint64_t)(uintptr_t)src, lkey,
						      (uint64_t)(uintptr_t)dst, rkey, 30 * ms, &res));
	CHECK(t_now_ns() - t0 >= 30 * ms, "timed out early");
	CHECK(strstr(marrow_last_error(), "waiting for a CQE") != NULL, "message names no wait: %s",
	      marrow_last_error());
	FAILS(MARROW_ETIMEDOUT, marrow_emu_bench_latency(qp.qp, cq.cq, 8, 10, 0, (uint64_t)(uintptr_t)src,
							 lkey, (uint64_t)(uintptr_t)dst, rkey, 10 * ms,
							 samples));
	/* The second call found the first one's WQEs still unretired. */
	CHECK(strstr(marrow_last_error(), "engine to retire") != NULL, "message: %s", marrow_last_error());
	t_sleep_us(5000);
	c1 = t_counters(dev);
	CHECK_DELTA(c0, c1, doorbells_observed, 0);
	CHECK_DELTA(c0, c1, dbrec_advances, 0);
	CHECK_DELTA(c0, c1, wqebb_fetched, 0);

	/* Resumed: the parked work completes, the CQ drains. */
	OK(marrow_emu_engine_pause(dev, 0));
	/* "Settled" means two equal reads 0.5 ms apart, which a loaded host
	 * (sanitizer runs beside other builds) also shows before the resumed
	 * engine's first pass: wait (bounded) for that pass's CQE first. */
	c1 = t_counters(dev);
	for (uint64_t t1 = t_now_ns(); T_DELTA(c0, c1, cqe_req) == 0 && t_now_ns() - t1 < 2000000000ull;) {
		t_sleep_us(200);
		c1 = t_counters(dev);
	}
	c1 = t_counters_settled(dev);
	CHECK(T_DELTA(c0, c1, doorbells_observed) >= 1, "no doorbell observed after resume");
	CHECK(T_DELTA(c0, c1, cqe_req) >= 1, "no CQE after resume");

	OK(marrow_emu_bench_rate(qp.qp, cq.cq, 8, 16, 5000, 0, (uint64_t)(uintptr_t)src, lkey,
				 (uint64_t)(uintptr_t)dst, rkey, 1000 * ms, &res));
	CHECK(res.messages == 5000, "rate after resume: %llu", (unsigned long long)res.messages);
	OK(marrow_emu_bench_latency(qp.qp, cq.cq, 8, 100, 10, (uint64_t)(uintptr_t)src, lkey,
				    (uint64_t)(uintptr_t)dst, rkey, 1000 * ms, samples));
	for (int i = 0; i < 100; i++)
		CHECK(samples[i] > 0 && samples[i] < 1000 * ms, "sample %d = %llu", i,
		      (unsigned long long)samples[i]);
	CHECK(memcmp(dst, src, 8) == 0, "benchmark data did not land");

	/* Pointer path and an error CQE turned into EIO with the syndrome. */
	OK(marrow_emu_bench_rate(qp.qp, cq.cq, 256, 4, 1000, 0, (uint64_t)(uintptr_t)src, lkey,
				 (uint64_t)(uintptr_t)dst, rkey, 1000 * ms, &res));
	CHECK(memcmp(dst, src, 256) == 0, "pointer benchmark data did not land");
	FAILS(MARROW_EIO, marrow_emu_bench_rate(qp.qp, cq.cq, 256, 4, 100, 0, (uint64_t)(uintptr_t)src,
						lkey, (uint64_t)(uintptr_t)dst, rkey ^ 0x10, 1000 * ms,
						&res));
	CHECK(strstr(marrow_last_error(), "REMOTE_ACCESS") != NULL, "EIO message: %s",
	      marrow_last_error());
	/* The QP is now in ERR: the benchmark refuses to start. */
	FAILS(MARROW_EINVAL, marrow_emu_bench_latency(qp.qp, cq.cq, 8, 1, 0, 0, 0,
						      (uint64_t)(uintptr_t)dst, rkey, ms, samples));
	FAILS(MARROW_EINVAL, marrow_emu_engine_pause(dev, 2));
	FAILS(MARROW_EINVAL, marrow_emu_engine_pause(NULL, 1));

	/* Pausing twice and resuming twice is harmless; destroy works paused. */
	OK(marrow_emu_engine_pause(dev, 1));
	OK(marrow_emu_engine_pause(dev, 1));
	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_engine_pause(dev, 0));
	OK(marrow_emu_engine_pause(dev, 0));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_engine_pause(dev, 1));
	OK(marrow_emu_device_close(dev));   /* closing a paused device works */
	free(src);
	free(dst);
	return t_finish("test_softnic_pause");
}
