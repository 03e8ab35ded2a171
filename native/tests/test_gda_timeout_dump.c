/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Watchdog dumps of the mini-gda CPU runner (docs/design/watchdog.md):
 * every timeout ends within its bound + 1 s and its message carries the
 * queue state with the right values.
 *  - engine paused: the WQE and the doorbell were stored, nobody looked
 *    (sq_pi > sq_ci, dbr = sq_pi, the doorbell still pending in the page);
 *  - QP in RESET under a running engine: the doorbell is dropped
 *    (emu_doorbells_dropped counts it, nothing pending);
 *  - round trip, engine paused: the peer's wait for the data word says so.
 */
#define _GNU_SOURCE
#include "dump_test_util.h"
#include "gda_test_rig.h"

static const struct rig_opts OPTS = {8, 10, 64, 0};
static const uint64_t BOUND_NS = 100000000ull; /* 100 ms */

static uint64_t run_timed(struct rig *r, uint32_t exp, char *msg, size_t cap)
{
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(exp, GDA_ORD_FENCE_SYS, MARROW_GDA_PAYLOAD_INLINE, 8, 4, 0);
	uint64_t samples[4], t0, took;
	int rc;

	cfg.timeout_ns = BOUND_NS;
	t0 = dump_now_ns();
	rc = marrow_gda_cpu_run(&cfg, &r->a.ep, exp == MARROW_GDA_EXP_ROUND_TRIP ? &r->b.ep : NULL, samples, &res);
	took = dump_now_ns() - t0;
	snprintf(msg, cap, "%s", marrow_last_error());
	CHECK(rc == MARROW_ETIMEDOUT, "rc %d (%s)", rc, msg);
	CHECK(took >= BOUND_NS && took < BOUND_NS + 1000000000ull, "took %llu ns for a %llu ns bound",
	      (unsigned long long)took, (unsigned long long)BOUND_NS);
	return took;
}

static void paused_engine(void)
{
	struct rig r;
	char msg[2048], emu[1024];

	rig_open(&r, &OPTS);
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 1));
	run_timed(&r, MARROW_GDA_EXP_PUT_COMPLETION, msg, sizeof(msg));
	/* the prefix tests and users grep for stays */
	CHECK(strncmp(msg, "marrow_gda_cpu_run: initiator timed out after 100000000 ns", 58) == 0, "%s", msg);
	CHECK(strstr(msg, MARROW_DUMP_MARK) != NULL, "no dump: %s", msg);
	CHECK(dump_is(msg, "waited_for", "cqe"), "%s", msg);
	CHECK(dump_num(msg, "bound_ms") == 100, "%s", msg);
	CHECK(dump_num(msg, "iteration") == 0, "%s", msg);
	CHECK(dump_num(msg, "qpn") == r.a.qpv.qpn, "%s", msg);
	CHECK(dump_num(msg, "sq_pi") == 1 && dump_num(msg, "sq_ci") == 0, "one WQEBB posted, none done: %s", msg);
	CHECK(dump_num(msg, "dbr") == 1, "the DBR was written: %s", msg);
	CHECK(dump_num(msg, "want_wqe_counter") == 0, "%s", msg);
	CHECK(dump_num(msg, "last_db") == (int64_t)mx_doorbell_value(1, 0, r.a.qpv.qpn, 0), "%s", msg);
	CHECK(dump_num(msg, "cq_ci") == 0 && dump_num(msg, "cq_dbr_ci") == 0, "%s", msg);
	CHECK(dump_is(msg, "last_cqe", "none") && dump_is(msg, "next_cqe", "invalid"), "%s", msg);

	/* The engine's own view, as MiniGda appends it for the software NIC. */
	REQUIRE_OK(marrow_emu_qp_dump(r.a.qp, emu, sizeof(emu)));
	CHECK(dump_is(emu, "emu_qp_state", "RTS"), "%s", emu);
	CHECK(dump_is(emu, "emu_engine", "paused"), "%s", emu);
	CHECK(dump_num(emu, "emu_sq_pi") == 0 && dump_num(emu, "emu_sq_ci") == 0, "no doorbell taken: %s", emu);
	CHECK(dump_num(emu, "emu_dbr") == 1, "%s", emu);
	CHECK(dump_num(emu, "emu_db_pending") == (int64_t)mx_doorbell_value(1, 0, r.a.qpv.qpn, 0),
	      "the doorbell waits in the page: %s", emu);
	CHECK(dump_num(emu, "emu_cq_pi") == 0 && dump_is(emu, "emu_last_cqe", "none"), "%s", emu);
	CHECK(dump_num(emu, "emu_doorbells_observed") == 0, "%s", emu);

	/* Resumed, the same snapshot shows the work done. */
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 0));
	for (int i = 0; i < 5000 && rig_counter(&r, "emu_cqe_req") == 0; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	REQUIRE_OK(marrow_emu_qp_dump(r.a.qp, emu, sizeof(emu)));
	CHECK(dump_is(emu, "emu_engine", "running"), "%s", emu);
	CHECK(dump_num(emu, "emu_sq_pi") == 1 && dump_num(emu, "emu_sq_ci") == 1, "%s", emu);
	CHECK(dump_num(emu, "emu_db_pending") == 0 && dump_num(emu, "emu_cq_pi") == 1, "%s", emu);
	CHECK(dump_is(emu, "emu_last_cqe", "req/0x00/0"), "%s", emu);
	CHECK(dump_num(emu, "emu_doorbells_observed") >= 1, "%s", emu);
	CHECK(rig_holds_iteration(r.b.inbox, 8, 0), "the parked WRITE delivered iteration 0");
	rig_close(&r);
}

static void dropped_doorbell(void)
{
	struct rig r;
	char msg[2048], emu[1024];

	rig_open(&r, &OPTS);
	REQUIRE_OK(marrow_emu_qp_modify(r.a.qp, MARROW_QPS_RESET, 0));
	run_timed(&r, MARROW_GDA_EXP_PUT_COMPLETION, msg, sizeof(msg));
	CHECK(dump_num(msg, "sq_pi") > dump_num(msg, "sq_ci"), "%s", msg);
	REQUIRE_OK(marrow_emu_qp_dump(r.a.qp, emu, sizeof(emu)));
	CHECK(dump_is(emu, "emu_qp_state", "RESET"), "%s", emu);
	CHECK(dump_is(emu, "emu_engine", "running"), "%s", emu);
	CHECK(dump_num(emu, "emu_doorbells_dropped") >= 1, "the engine dropped the doorbell: %s", emu);
	CHECK(dump_num(emu, "emu_db_pending") == 0 && dump_num(emu, "emu_sq_ci") == 0, "%s", emu);
	rig_close(&r);
}

static void round_trip_peer(void)
{
	struct rig r;
	char msg[2048];

	rig_open(&r, &OPTS);
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 1));
	run_timed(&r, MARROW_GDA_EXP_ROUND_TRIP, msg, sizeof(msg));
	/* the peer never saw the ping (the initiator's WRITE never ran) */
	CHECK(strstr(msg, "peer timed out") != NULL, "%s", msg);
	CHECK(dump_is(msg, "waited_for", "data_word"), "%s", msg);
	CHECK(dump_num(msg, "want_word") != -1 && !dump_is(msg, "want_word", "0x0000000000000000"), "%s", msg);
	CHECK(dump_is(msg, "inbox_word", "0x0000000000000000"), "%s", msg);
	CHECK(dump_is(msg, "last_db", "none") && dump_num(msg, "sq_pi") == 0, "the peer posted nothing: %s", msg);
	CHECK(dump_num(msg, "qpn") == r.b.qpv.qpn, "the peer's QP: %s", msg);
	REQUIRE_OK(marrow_emu_engine_pause(r.dev, 0));
	rig_close(&r);
}

int main(void)
{
	paused_engine();
	dropped_doorbell();
	round_trip_peer();
	if (g_failures) {
		fprintf(stderr, "test_gda_timeout_dump: %d failure(s)\n", g_failures);
		return 1;
	}
	printf("test_gda_timeout_dump: OK\n");
	return 0;
}
