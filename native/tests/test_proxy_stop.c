/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * A worker that stops makes producers time out with a clear error, never
 * hang: after marrow_proxy_stop a producer fills the ring and its next
 * enqueue returns ETIMEDOUT within its bound, saying the worker is
 * stopped; waiting for a completion says the same. A worker that failed on
 * a bad descriptor is reported with its reason. Each wait is timed so that
 * a hang would fail the test (ctest also bounds the whole test).
 */
#include "test_proxy_rig.h"

static void stopped(uint32_t handoff)
{
	struct rig r;
	uint64_t t0, took;
	int rc = MARROW_OK;
	uint32_t n = 0;

	rig_open(&r, 1, 1, 3, 4, handoff, 6, 65536);
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_enqueue(r.px, 0, 0, 40000, 8, 0, 1000000000ull, NULL));
	OK(marrow_proxy_wait(r.px, 0, 1, 5000000000ull));
	OK(marrow_proxy_stop(r.px));
	t0 = rig_now_ns();
	while (rc == MARROW_OK && n < 100) {
		rc = marrow_proxy_enqueue(r.px, 0, 0, 40000, 8, 0, 100000000ull, NULL);
		n++;
	}
	took = rig_now_ns() - t0;
	CHECK(rc == MARROW_ETIMEDOUT);
	CHECK(n == 8 + 1);                                  /* 8 slots, then the wait */
	CHECK(took >= 100000000ull && took < 2000000000ull);
	CHECK(strstr(marrow_last_error(), "worker 0 is stopped") != NULL);
	t0 = rig_now_ns();
	CHECK(marrow_proxy_wait(r.px, 0, 2, 100000000ull) == MARROW_ETIMEDOUT);
	CHECK(rig_now_ns() - t0 < 2000000000ull);
	CHECK(strstr(marrow_last_error(), "a completion") != NULL);
	CHECK(strstr(marrow_last_error(), "stopped") != NULL);
	rig_close(&r);
}

static void failed(void)
{
	struct rig r;
	struct marrow_proxy_worker_stats st = { .size = sizeof(st) };

	rig_open(&r, 1, 1, 3, 4, MARROW_PROXY_TUNED, 6, 65536);
	OK(marrow_proxy_start(r.px));
	/* Remote range beyond the buffer: the worker must refuse and stop. */
	OK(marrow_proxy_enqueue(r.px, 0, 0, 65536 - 4, 8, 0, 1000000000ull, NULL));
	CHECK(marrow_proxy_wait(r.px, 0, 1, 300000000ull) == MARROW_ETIMEDOUT);
	CHECK(strstr(marrow_last_error(), "failed") != NULL);
	CHECK(strstr(marrow_last_error(), "bad descriptor") != NULL);
	OK(marrow_proxy_worker_stats(r.px, 0, &st));
	CHECK(st.state == MPR_WORKER_FAILED);
	CHECK(st.error == MARROW_EPROTO);
	rig_close(&r);
}

int main(void)
{
	stopped(MARROW_PROXY_TUNED);
	stopped(MARROW_PROXY_BASELINE);
	failed();
	printf("test_proxy_stop: OK\n");
	return 0;
}
