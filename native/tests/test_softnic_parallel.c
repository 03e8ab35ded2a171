/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_emu_bench_rate_parallel: several producers, one QP each, sharded
 * over the engine threads. Checks the totals and that every QP's engine
 * did the work (per-engine counters summed), not the speed: this machine
 * has too few cores to show scaling.
 */
#include "emu_test_util.h"

#include <sched.h>

/* Pinning: every engine thread and every producer to CPUs this process may
 * use (taken from sched_getaffinity). */
static void pinned(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 2);
	struct marrow_emu_bench_result res;
	int32_t cpus[3] = { -1, -1, -1 }, bad[2] = { 0, 1 << 20 };
	cpu_set_t allowed;
	int found = 0;

	REQUIRE(sched_getaffinity(0, sizeof(allowed), &allowed) == 0, "sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && found < 3; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[found++] = c;
	REQUIRE(found >= 1, "no usable CPU");
	for (int i = found; i < 3; i++)
		cpus[i] = cpus[0];
	FAILS(MARROW_EINVAL, marrow_emu_engine_pin(dev, cpus, 1));     /* 2 engine threads */
	FAILS(MARROW_EINVAL, marrow_emu_engine_pin(dev, NULL, 2));
	FAILS(MARROW_EINVAL, marrow_emu_engine_pin(dev, bad, 2));
	OK(marrow_emu_engine_pin(dev, cpus, 2));
	FAILS(MARROW_EINVAL, marrow_emu_bench_rate_parallel_pinned(dev, 2, 8, 16, 8, 64, 100, 0,
								   1000000000ull, bad, &res));
	OK(marrow_emu_bench_rate_parallel_pinned(dev, 2, 8, 16, 8, 64, 5000, 100, 5000000000ull,
						 cpus + 1, &res));
	CHECK(res.messages == 10000, "pinned: messages %llu", (unsigned long long)res.messages);
	OK(marrow_emu_device_close(dev));
}

static void run(uint32_t engines, uint32_t producers, uint32_t size, uint32_t max_inline)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, engines);
	struct marrow_emu_bench_result res;
	struct t_ctrs b, a;
	const uint64_t n = 20000;

	b = t_counters(dev);
	OK(marrow_emu_bench_rate_parallel(dev, producers, size, 16, 8, max_inline, n, 1000,
					  5000000000ull, &res));
	a = t_counters(dev);
	printf("  %u engine(s), %u producer(s), %u B: %.2f M msg/s (not a measurement: shared 2-core box)\n",
	       engines, producers, size, (double)res.messages * 1e3 / (double)res.elapsed_ns);
	CHECK(res.messages == n * producers, "messages %llu, expected %llu",
	      (unsigned long long)res.messages, (unsigned long long)(n * producers));
	CHECK(res.doorbells == producers * ((n + 15) / 16), "doorbells %llu",
	      (unsigned long long)res.doorbells);
	CHECK(res.elapsed_ns > 0, "elapsed 0");
	CHECK(T_DELTA(b, a, wqe_rdma_write) == (n + 1000) * producers, "engine executed %llu WRITEs",
	      (unsigned long long)T_DELTA(b, a, wqe_rdma_write));
	CHECK(T_DELTA(b, a, cqe_req_err) == 0, "error CQEs");
	OK(marrow_emu_device_close(dev));   /* the bench freed everything it made */
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_bench_result res;

	FAILS(MARROW_EINVAL, marrow_emu_bench_rate_parallel(dev, 0, 8, 16, 8, 64, 10, 0, 1000000000ull, &res));
	FAILS(MARROW_EINVAL, marrow_emu_bench_rate_parallel(dev, 65, 8, 16, 8, 64, 10, 0, 1000000000ull, &res));
	FAILS(MARROW_EINVAL, marrow_emu_bench_rate_parallel(dev, 1, 8, 16, 8, 64, 0, 0, 1000000000ull, &res));
	FAILS(MARROW_EINVAL, marrow_emu_bench_rate_parallel(dev, 1, 8, 16, 8, 64, 10, 0, 1000000000ull, NULL));
	FAILS(MARROW_EINVAL, marrow_emu_bench_rate_parallel(NULL, 1, 8, 16, 8, 64, 10, 0, 1000000000ull, &res));
	FAILS(MARROW_EINVAL, marrow_emu_bench_rate_parallel(dev, 1, 8, 512, 8, 64, 10, 0, 1000000000ull, &res));
	OK(marrow_emu_device_close(dev));   /* a failed set-up leaves nothing behind */

	pinned();
	run(1, 1, 8, 64);
	run(2, 2, 8, 64);
	run(2, 3, 8, 64);
	run(3, 2, 256, 64);   /* pointer payload */
	return t_finish("test_softnic_parallel");
}
