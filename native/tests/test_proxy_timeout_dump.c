/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Watchdog dumps of the proxy's ring waits (docs/design/watchdog.md): a
 * stopped worker (ring full, then no completion) and a running worker whose
 * NIC engine is paused. Each wait ends within its bound + 1 s and its
 * message carries the ring counters, the worker's statistics and the
 * software-NIC QP's queues with the right values.
 */
#include "dump_test_util.h"
#include "test_proxy_rig.h"

static const uint64_t BOUND_NS = 100000000ull; /* 100 ms */

static void within_bound(uint64_t t0)
{
	uint64_t took = rig_now_ns() - t0;

	CHECK(took >= BOUND_NS && took < BOUND_NS + 1000000000ull);
}

static void stopped_worker(uint32_t handoff)
{
	struct rig r;
	const char *m;
	uint64_t t0;
	int rc = MARROW_OK;

	rig_open(&r, 1, 1, 3, 4, handoff, 6, 65536);
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_enqueue(r.px, 0, 0, 40000, 8, 0, 1000000000ull, NULL));
	OK(marrow_proxy_wait(r.px, 0, 1, 5000000000ull));
	OK(marrow_proxy_stop(r.px));
	for (int n = 0; rc == MARROW_OK && n < 100; n++) {
		t0 = rig_now_ns();
		rc = marrow_proxy_enqueue(r.px, 0, 0, 40000, 8, 0, BOUND_NS, NULL);
	}
	CHECK(rc == MARROW_ETIMEDOUT);
	within_bound(t0);
	m = marrow_last_error();
	CHECK(strstr(m, "proxy ring 0: timed out waiting for a free slot") == m);
	CHECK(dump_is(m, "waited_for", "free_slot"));
	CHECK(dump_num(m, "bound_ms") == 100);
	CHECK(dump_num(m, "ring") == 0 && dump_num(m, "slots") == 8);
	CHECK(dump_num(m, "position") == 9);   /* one done, eight queued, the ninth waits */
	CHECK(dump_num(m, "tail") == 1 && dump_num(m, "completed") == 1);
	if (handoff == MARROW_PROXY_BASELINE)
		CHECK(dump_num(m, "head") == 10); /* fetch-add reserved the slot before waiting */
	CHECK(dump_is(m, "worker_state", "stopped"));
	CHECK(dump_num(m, "worker_requests") == 1 && dump_num(m, "worker_cqes") == 1);
	CHECK(dump_num(m, "qpn") == r.qv[0].qpn);
	CHECK(dump_num(m, "dbr") == 1 && dump_num(m, "cq_dbr_ci") == 1);
	CHECK(dump_is(m, "last_cqe", "req/0x00/0") && dump_is(m, "next_cqe", "invalid"));

	t0 = rig_now_ns();
	CHECK(marrow_proxy_wait(r.px, 0, 2, BOUND_NS) == MARROW_ETIMEDOUT);
	within_bound(t0);
	m = marrow_last_error();
	CHECK(dump_is(m, "waited_for", "completion") && dump_num(m, "position") == 1);
	CHECK(dump_is(m, "worker_state", "stopped"));
	rig_close(&r);
}

static void paused_engine(void)
{
	struct rig r;
	char m[2048], emu[1024];
	uint64_t t0;

	rig_open(&r, 1, 1, 3, 4, MARROW_PROXY_TUNED, 6, 65536);
	OK(marrow_emu_engine_pause(r.dev, 1));
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_enqueue(r.px, 0, 0, 40000, 8, 0, 1000000000ull, NULL));
	t0 = rig_now_ns();
	CHECK(marrow_proxy_wait(r.px, 0, 1, BOUND_NS) == MARROW_ETIMEDOUT);
	within_bound(t0);
	snprintf(m, sizeof(m), "%s", marrow_last_error());
	CHECK(dump_is(m, "waited_for", "completion") && dump_num(m, "position") == 0);
	CHECK(dump_is(m, "worker_state", "running"));
	CHECK(dump_num(m, "tail") == 1 && dump_num(m, "completed") == 0);   /* taken, posted, not done */
	CHECK(dump_num(m, "worker_requests") == 1 && dump_num(m, "worker_cqes") == 0);
	CHECK(dump_num(m, "dbr") == 1 && dump_num(m, "cq_dbr_ci") == 0);
	CHECK(dump_is(m, "last_cqe", "none") && dump_is(m, "next_cqe", "invalid"));
	OK(marrow_emu_qp_dump(r.qp[0], emu, sizeof(emu)));
	CHECK(dump_is(emu, "emu_qp_state", "RTS") && dump_is(emu, "emu_engine", "paused"));
	CHECK(dump_num(emu, "emu_dbr") == 1 && dump_num(emu, "emu_sq_ci") == 0);
	CHECK(dump_num(emu, "emu_db_pending") != 0);
	OK(marrow_emu_engine_pause(r.dev, 0));
	OK(marrow_proxy_wait(r.px, 0, 1, 5000000000ull));
	OK(marrow_proxy_stop(r.px));
	rig_close(&r);
}

int main(void)
{
	stopped_worker(MARROW_PROXY_BASELINE);
	stopped_worker(MARROW_PROXY_TUNED);
	paused_engine();
	printf("test_proxy_timeout_dump: OK\n");
	return 0;
}
