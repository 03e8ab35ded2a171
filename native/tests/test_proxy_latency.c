/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The single-operation experiment end to end, both handoffs, small: every
 * sample is positive, each putc sample covers its issue sample, the round
 * trip really crossed PE 1 (PE 0's flag holds the last value sent), and
 * the experiment refuses a proxy with one ring (no ring for the reply).
 */
#include "test_proxy_rig.h"

enum { ITERS = 300 };

static void run(uint32_t handoff)
{
	struct rig r;
	struct marrow_proxy_latency_params p = { .size = sizeof(p), .iters = ITERS, .warmup = 20, .msg_size = 8,
						 .timeout_ns = 5000000000ull };
	static uint64_t issue[ITERS], putc[ITERS], rtt[ITERS];
	uint64_t flag0, flag1;

	rig_open(&r, 1, 2, 4, 8, handoff, 6, 65536);
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_cpu_latency(r.px, &p, issue, putc, rtt));
	for (int i = 0; i < ITERS; i++) {
		/* An issue can take less than one tick of the timer: 0 is a
		 * reading, not a failure. */
		CHECK(putc[i] >= issue[i] && rtt[i] > 0);
		CHECK(rtt[i] < 5000000000ull);
	}
	memcpy(&flag0, r.buf + MARROW_PROXY_FLAG_OFF, 8);
	memcpy(&flag1, r.buf + r.len / 2 + MARROW_PROXY_FLAG_OFF, 8);
	CHECK(flag0 == flag1 && flag0 != 0);
	rig_close(&r);
}

static void one_ring(void)
{
	struct rig r;
	struct marrow_proxy_latency_params p = { .size = sizeof(p), .iters = 1, .msg_size = 8,
						 .timeout_ns = 1000000000ull };
	uint64_t s[1];

	rig_open(&r, 1, 1, 4, 8, MARROW_PROXY_TUNED, 6, 65536);
	OK(marrow_proxy_start(r.px));
	CHECK(marrow_proxy_cpu_latency(r.px, &p, NULL, NULL, s) == MARROW_EINVAL);
	CHECK(strstr(marrow_last_error(), "rings >= 2") != NULL);
	OK(marrow_proxy_cpu_latency(r.px, &p, s, NULL, NULL));
	rig_close(&r);
}

int main(void)
{
	run(MARROW_PROXY_TUNED);
	run(MARROW_PROXY_BASELINE);
	one_ring();
	printf("test_proxy_latency: OK\n");
	return 0;
}
