/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The C benchmarks end to end, on a hot engine: message rate of 8-byte
 * inline WRITEs at several batch sizes and put+completion latency.
 *
 * As a ctest it runs short and checks behaviour only: every message,
 * payload byte and CQE accounted for; no rate is asserted (performance is
 * measured by benchmarks, and this machine may be busy). For measurements:
 *   test_softnic_bench --full [messages] [engine_cpu] [producer_cpu]
 * runs 5 repetitions of 20 M messages per batch size and 1 M latency
 * samples, and prints medians and percentiles.
 */
#include "emu_test_util.h"

#include <sched.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int full = argc > 1 && strcmp(argv[1], "--full") == 0;
	uint64_t messages = full ? (argc > 2 ? strtoull(argv[2], NULL, 0) : 20000000ull) : 300000;
	int engine_cpu = full && argc > 3 ? atoi(argv[3]) : -1;
	int producer_cpu = full && argc > 4 ? atoi(argv[4]) : -1;
	int reps = full ? 5 : 1;
	uint64_t lat_iters = full ? 1000000 : 20000;
	struct marrow_emu_device_attr a = { .size = sizeof(a), .poll_mode = MARROW_EMU_POLL_HOT,
					    .engine_threads = 1, .engine_cpu = engine_cpu, .quiet = !full };
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *smr, *dmr;
	uint32_t lkey, rkey;
	struct t_cq cq;
	struct t_qp qp;
	uint8_t *src = t_alloc(4096, 0x77), *dst = t_alloc(4096, 0);
	const uint32_t batches[] = { 1, 16, 32 };
	const uint64_t timeout = 5000000000ull;

	if (producer_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(producer_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			perror("sched_setaffinity");
	}
	OK(marrow_emu_device_open(&a, &dev));
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 4096, MARROW_ACCESS_LOCAL_WRITE, &smr, &lkey, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dmr,
			     NULL, &rkey));
	/* As the Java rig: CQ of 2^16 entries without oi, SQ of 1024 WQEBBs. */
	t_cq_create(dev, 16, 0, &cq);
	t_qp_create(pd, &cq, 10, 64, &qp);
	t_connect(&qp, qp.v.qpn);

	for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		double rates[16];
		struct marrow_emu_bench_result r;
		struct t_ctrs c0 = t_counters(dev), c1;

		for (int i = 0; i < reps; i++) {
			OK(marrow_emu_bench_rate(qp.qp, cq.cq, 8, batches[b], messages, messages / 10,
						 (uint64_t)(uintptr_t)src, lkey, (uint64_t)(uintptr_t)dst, rkey,
						 timeout, &r));
			CHECK(r.messages == messages, "messages %llu", (unsigned long long)r.messages);
			CHECK(r.cqes == (messages + batches[b] - 1) / batches[b] && r.doorbells == r.cqes,
			      "batch %u: %llu CQEs, %llu doorbells", batches[b], (unsigned long long)r.cqes,
			      (unsigned long long)r.doorbells);
			rates[i] = r.messages * 1e3 / r.elapsed_ns;
		}
		c1 = t_counters_settled(dev);
		qsort(rates, reps, sizeof(double), cmp_dbl);
		printf("rate  8 B inline batch %2u: median %6.2f M msg/s (min %.2f max %.2f, %d x %llu msgs); "
		       "engine saw %llu doorbells, %.1f WQEBBs/dbrec advance\n",
		       batches[b], rates[reps / 2], rates[0], rates[reps - 1], reps,
		       (unsigned long long)messages,
		       (unsigned long long)T_DELTA(c0, c1, doorbells_observed),
		       (double)T_DELTA(c0, c1, wqebb_fetched) / (double)T_DELTA(c0, c1, dbrec_advances));
		CHECK(T_DELTA(c0, c1, wqe_rdma_write) == (uint64_t)reps * (messages + messages / 10),
		      "engine executed %llu WRITEs", (unsigned long long)T_DELTA(c0, c1, wqe_rdma_write));
		/* Behaviour, not speed (a timed floor fails on a loaded machine):
		 * every byte and every completion is accounted for. */
		uint64_t all = (uint64_t)reps * (messages + messages / 10);
		uint64_t cqes = (uint64_t)reps * ((messages + batches[b] - 1) / batches[b] +
						  (messages / 10 + batches[b] - 1) / batches[b]);

		CHECK_DELTA(c0, c1, inline_bytes, 8 * all);
		CHECK_DELTA(c0, c1, payload_bytes_rx, 8 * all);
		CHECK_DELTA(c0, c1, wqebb_fetched, all);
		CHECK_DELTA(c0, c1, cqe_req, cqes);
		CHECK_DELTA(c0, c1, cqe_req_err, 0);
		CHECK_DELTA(c0, c1, wqe_sanity_fail, 0);
		CHECK(memcmp(dst, src, 8) == 0, "batch %u: payload did not land", batches[b]);
		memset(dst, 0, 8);
	}

	uint64_t *s = malloc(lat_iters * sizeof(*s));

	REQUIRE(s != NULL, "malloc");
	OK(marrow_emu_bench_latency(qp.qp, cq.cq, 8, lat_iters, lat_iters / 10, (uint64_t)(uintptr_t)src,
				    lkey, (uint64_t)(uintptr_t)dst, rkey, timeout, s));
	qsort(s, lat_iters, sizeof(*s), cmp_u64);
	printf("latency 8 B inline put+completion: p50 %llu ns  p90 %llu ns  p99 %llu ns  p99.9 %llu ns  "
	       "min %llu ns  (%llu samples)\n",
	       (unsigned long long)s[lat_iters / 2], (unsigned long long)s[lat_iters * 9 / 10],
	       (unsigned long long)s[lat_iters * 99 / 100], (unsigned long long)s[lat_iters * 999 / 1000],
	       (unsigned long long)s[0], (unsigned long long)lat_iters);
	CHECK(s[0] > 0, "zero latency sample");
	free(s);

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	free(dst);
	return t_finish("test_softnic_bench");
}
