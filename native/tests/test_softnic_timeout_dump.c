/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Watchdog dumps of the software NIC's CPU benchmarks (docs/design/watchdog.md):
 * with the engine paused, the rate and latency benchmarks time out within
 * their bound + 1 s and the message carries the producer's counters, the
 * queues and the engine's own view (emu_*), with the right values.
 */
#include "dump_test_util.h"
#include "emu_test_util.h"

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *smr, *dmr;
	struct marrow_emu_qp_snapshot snap = { .size = sizeof(snap) };
	uint32_t lkey, rkey;
	struct t_cq cq;
	struct t_qp qp;
	uint8_t *src = t_alloc(4096, 0x3c), *dst = t_alloc(4096, 0);
	struct marrow_emu_bench_result res;
	uint64_t samples[10], t0, took;
	const uint64_t ms = 1000000, bound = 100 * ms;
	const char *m;

	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 4096, MARROW_ACCESS_LOCAL_WRITE, &smr, &lkey, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dmr,
			     NULL, &rkey));
	t_cq_create(dev, 8, 0, &cq);
	t_qp_create(pd, &cq, 8, 64, &qp);
	t_connect(&qp, qp.v.qpn);

	OK(marrow_emu_engine_pause(dev, 1));
	t0 = t_now_ns();
	FAILS(MARROW_ETIMEDOUT, marrow_emu_bench_rate(qp.qp, cq.cq, 8, 16, 1000, 0, (uint64_t)(uintptr_t)src,
						      lkey, (uint64_t)(uintptr_t)dst, rkey, bound, &res));
	took = t_now_ns() - t0;
	CHECK(took >= bound && took < bound + 1000 * ms, "took %llu ns", (unsigned long long)took);
	m = marrow_last_error();
	CHECK(strstr(m, "waiting for a CQE") != NULL && strstr(m, MARROW_DUMP_MARK) != NULL, "%s", m);
	/* The SQ holds 256 WQEBBs: the producer filled it (16 doorbells of 16) and waits. */
	CHECK(dump_num(m, "sq_pi") == 256 && dump_num(m, "sq_ci") == 0, "%s", m);
	CHECK(dump_num(m, "dbr") == 256 && dump_num(m, "cq_ci") == 0, "%s", m);
	CHECK(dump_is(m, "last_cqe", "none") && dump_is(m, "next_cqe", "invalid"), "%s", m);
	CHECK(dump_is(m, "emu_qp_state", "RTS") && dump_is(m, "emu_engine", "paused"), "%s", m);
	CHECK(dump_num(m, "emu_sq_pi") == 0 && dump_num(m, "emu_sq_ci") == 0 && dump_num(m, "emu_dbr") == 256,
	      "the engine saw nothing: %s", m);
	CHECK(dump_num(m, "emu_db_pending") != 0, "%s", m);
	CHECK(dump_num(m, "emu_doorbells_observed") == 0 && dump_num(m, "emu_cq_pi") == 0, "%s", m);

	/* The next benchmark first waits for the engine to retire what is posted. */
	t0 = t_now_ns();
	FAILS(MARROW_ETIMEDOUT, marrow_emu_bench_latency(qp.qp, cq.cq, 8, 10, 0, (uint64_t)(uintptr_t)src, lkey,
							 (uint64_t)(uintptr_t)dst, rkey, bound, samples));
	took = t_now_ns() - t0;
	CHECK(took >= bound && took < bound + 1000 * ms, "took %llu ns", (unsigned long long)took);
	m = marrow_last_error();
	CHECK(strstr(m, "engine to retire") != NULL, "%s", m);
	CHECK(dump_num(m, "sq_pi") == 256 && dump_num(m, "sq_ci") == 0 && dump_num(m, "emu_sq_ci") == 0, "%s", m);

	/* The snapshot struct itself, resumed: everything retired. */
	OK(marrow_emu_engine_pause(dev, 0));
	for (int i = 0; i < 5000; i++) {
		OK(marrow_emu_qp_snapshot(qp.qp, &snap));
		if (snap.sq_exec_ci == 256)
			break;
		t_sleep_us(1000);
	}
	CHECK(snap.state == MARROW_QPS_RTS && snap.qpn == qp.v.qpn && snap.sq_wqebb_cnt == 256, "header");
	CHECK(snap.sq_db_index == 256 && snap.sq_exec_ci == 256 && snap.dbr_send == 256, "retired: %u/%u/%u",
	      snap.sq_db_index, snap.sq_exec_ci, snap.dbr_send);
	CHECK(snap.cq_pi == 16 && snap.last_cqe_valid && snap.last_cqe_opcode == MX_CQE_REQ &&
	      snap.last_cqe_wqe_counter == 255, "16 signaled WQEs, the last at 255: cq_pi %u wqe_counter %u",
	      snap.cq_pi, snap.last_cqe_wqe_counter);
	CHECK(snap.doorbells_observed >= 1 && snap.engine_paused == 0, "counters");
	snap.size = 4;
	FAILS(MARROW_EINVAL, marrow_emu_qp_snapshot(qp.qp, &snap));
	FAILS(MARROW_EINVAL, marrow_emu_qp_dump(qp.qp, NULL, 0));

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	free(dst);
	return t_finish("test_softnic_timeout_dump");
}
