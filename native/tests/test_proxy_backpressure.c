/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Ring-full back-pressure, for both handoffs. With the NIC engine paused the
 * worker fills its SQ (16 WQEs) and then can take nothing more from the ring
 * (4 slots), so a producer must find the ring full: its enqueue waits, and
 * expires with ETIMEDOUT naming the ring and the worker. Resuming the engine
 * lets everything through, in order, and the next enqueue succeeds. A tiny
 * ring under a streaming producer then shows full waits with no loss.
 */
#include "test_proxy_rig.h"

static void paused_run(uint32_t handoff)
{
	struct rig r;
	uint64_t t0, took, ticket = 0;
	uint32_t n = 0;
	int rc;

	rig_open(&r, 1, 1, 2, 4, handoff, 4, 65536);
	OK(marrow_proxy_start(r.px));
	OK(marrow_emu_engine_pause(r.dev, 1));
	/* 16 in the SQ + 4 in the ring fit; the 21st cannot. */
	for (;;) {
		rc = marrow_proxy_enqueue(r.px, 0, 0, 32768 + n * 8, 8, 0, 200000000ull, &ticket);
		if (rc != MARROW_OK)
			break;
		n++;
		CHECK(n <= 16 + 4);
	}
	CHECK(rc == MARROW_ETIMEDOUT);
	CHECK(n == 16 + 4);
	CHECK(strstr(marrow_last_error(), "free slot") != NULL);
	CHECK(strstr(marrow_last_error(), "worker 0") != NULL);
	OK(marrow_emu_engine_pause(r.dev, 0));
	/* baseline reserved (and abandoned) position 20 in the failed call: its
	 * slot stays invalid, so the producer side is what the test reuses for
	 * tuned only. Both: the first 20 complete. */
	OK(marrow_proxy_wait(r.px, 0, 20, 5000000000ull));
	if (handoff == MARROW_PROXY_TUNED) {
		t0 = rig_now_ns();
		OK(marrow_proxy_enqueue(r.px, 0, 0, 32768, 8, 0, 1000000000ull, &ticket));
		took = rig_now_ns() - t0;
		CHECK(ticket == 20);
		CHECK(took < 1000000000ull);
		OK(marrow_proxy_wait(r.px, 0, 21, 5000000000ull));
	}
	rig_close(&r);
}

static void streaming_run(uint32_t handoff)
{
	struct rig r;
	uint64_t need;
	struct marrow_proxy_rate_params p = { .size = sizeof(p), .producers = 1, .msg_size = 8,
					      .messages = 4000, .warmup = 0, .timeout_ns = 5000000000ull };
	struct marrow_proxy_rate_result res = { .size = sizeof(res) };

	OK(marrow_proxy_buffer_bytes(1, 1, 8, &need));
	rig_open(&r, 1, 1, 1, 2, handoff, 4, need);
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_cpu_rate(r.px, &p, &res));
	CHECK(res.messages == 4000);
	CHECK(res.verify_errors == 0);
	CHECK(res.ring_full_waits > 0);          /* a 2-slot ring must fill */
	if (handoff == MARROW_PROXY_TUNED)
		CHECK(res.cache_refreshes >= res.ring_full_waits);
	else
		CHECK(res.cache_refreshes == 0);      /* baseline reads progress every time, caches nothing */
	rig_close(&r);
}

int main(void)
{
	paused_run(MARROW_PROXY_TUNED);
	paused_run(MARROW_PROXY_BASELINE);
	streaming_run(MARROW_PROXY_TUNED);
	streaming_run(MARROW_PROXY_BASELINE);
	printf("test_proxy_backpressure: OK\n");
	return 0;
}
