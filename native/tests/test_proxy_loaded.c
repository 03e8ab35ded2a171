/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy loaded round trip with CPU producers: probes complete idle,
 * with background streams on the probe's ring (baseline handoff) and on
 * rings of their own (tuned); every background slot delivered its source
 * bytes; pacing never posts faster than asked; a shared ring with the tuned
 * handoff and a too-small buffer are refused before anything runs.
 */
#include "test_proxy_rig.h"
#include "marrow/marrow_proxy_loaded.h"

enum { ITERS = 60 };

static void run(uint32_t handoff, uint32_t queue, uint32_t streams, uint64_t pace)
{
	struct rig r;
	struct marrow_proxy_loaded_params p = { .size = sizeof(p), .queue = queue, .bg_streams = streams,
						.pace_msgs_per_s = pace, .iters = ITERS, .warmup = 6,
						.timeout_ns = 30000000000ull };
	struct marrow_proxy_loaded_result res = { .size = sizeof(res) };
	static uint64_t rtt[ITERS];
	uint64_t flag0, flag1;

	rig_open(&r, 1, 4, 6, 8, handoff, 8, 65536);
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_cpu_loaded(r.px, &p, rtt, &res));
	CHECK(res.probes_done == ITERS + 6);
	for (int i = 0; i < ITERS; i++)
		CHECK(rtt[i] > 0 && rtt[i] <= res.timed_ns);
	memcpy(&flag0, r.buf + MARROW_PROXY_FLAG_OFF, 8);
	memcpy(&flag1, r.buf + r.len / 2 + MARROW_PROXY_FLAG_OFF, 8);
	CHECK(flag0 == flag1 && flag0 != 0);   /* the last reply crossed PE 1 */
	CHECK(res.bg_slot_errors == 0);
	if (streams) {
		uint64_t v;

		CHECK(res.bg_posted > 0);
		memcpy(&v, r.buf + r.len / 2 + MARROW_PROXY_AREA_LAT, 8);   /* stream 0, slot 0 arrived */
		CHECK(v == 0x6c00000000000000ull);
	} else {
		CHECK(res.bg_posted == 0);
	}
	if (pace) {
		uint64_t interval = streams * 1000000000ull / pace;

		CHECK(res.bg_in_window <= streams * (res.timed_ns / interval + 2));
	}
	printf("  ok handoff %u queue %u streams %u pace %llu: rtt[30] %llu ns, bg %llu (%llu in window)\n", handoff,
	       queue, streams, (unsigned long long)pace, (unsigned long long)rtt[30], (unsigned long long)res.bg_posted,
	       (unsigned long long)res.bg_in_window);
	rig_close(&r);
}

static void refusals(void)
{
	struct rig r;
	struct marrow_proxy_loaded_params p = { .size = sizeof(p), .queue = MARROW_PROXY_LOADED_SHARED,
						.bg_streams = 2, .iters = 1, .timeout_ns = 1000000000ull };
	struct marrow_proxy_loaded_result res = { .size = sizeof(res) };
	uint64_t s[1];

	rig_open(&r, 1, 4, 6, 8, MARROW_PROXY_TUNED, 8, 65536);
	OK(marrow_proxy_start(r.px));
	CHECK(marrow_proxy_cpu_loaded(r.px, &p, s, &res) == MARROW_EINVAL);
	CHECK(strstr(marrow_last_error(), "baseline") != NULL);
	p.queue = MARROW_PROXY_LOADED_RESERVED;
	p.bg_streams = 3;   /* tuned: 2 background rings only */
	CHECK(marrow_proxy_cpu_loaded(r.px, &p, s, &res) == MARROW_EINVAL);
	p.bg_streams = 200; /* the 64 KiB buffer holds fewer streams */
	CHECK(marrow_proxy_cpu_loaded(r.px, &p, s, &res) == MARROW_EINVAL);
	CHECK(strstr(marrow_last_error(), "buffer") != NULL);
	rig_close(&r);
}

int main(void)
{
	run(MARROW_PROXY_TUNED, MARROW_PROXY_LOADED_RESERVED, 0, 0);
	run(MARROW_PROXY_BASELINE, MARROW_PROXY_LOADED_SHARED, 2, 0);
	run(MARROW_PROXY_TUNED, MARROW_PROXY_LOADED_RESERVED, 2, 0);
	run(MARROW_PROXY_BASELINE, MARROW_PROXY_LOADED_RESERVED, 2, 50000);
	refusals();
	printf("test_proxy_loaded: OK\n");
	return 0;
}
