/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Owner-bit correctness over several CQ laps for every CQ size 1..65536:
 * each CQE lands in slot p & (N-1) with owner (p >> log_n) & 1, the slot
 * after the last CQE never looks valid, and wqe_counters follow the SQ.
 */
#include "emu_test_util.h"

static void run_size(struct marrow_emu_device *dev, struct marrow_emu_pd *pd, uint32_t log_n)
{
	uint32_t n = 1u << log_n;
	uint64_t total = 3ull * n + 5 > 64 ? 3ull * n + 5 : 64;
	struct t_cq cq;
	struct t_qp qp;
	uint64_t done = 0;
	uint8_t cqe[64];
	int bad = 0;

	t_cq_create(dev, log_n, 0, &cq);   /* oi = 0: the poller keeps ci current */
	t_qp_create(pd, &cq, 10, 0, &qp);
	t_connect(&qp, qp.v.qpn);

	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = (const uint8_t *)cq.v.buf + (size_t)i * 64;

		if (e[63] != MX_CQE_OP_OWN_INIT || mx_cqe_is_valid(e, i, log_n)) {
			CHECK(0, "log %u: slot %u op_own 0x%02x valid before any CQE", log_n, i, e[63]);
			break;
		}
	}

	while (done < total && !bad) {
		/* Never more outstanding than the CQ or SQ holds. */
		uint32_t burst = n < 512 ? n : 512;
		uint16_t first = qp.pi;

		if (burst > total - done)
			burst = (uint32_t)(total - done);
		for (uint32_t i = 0; i < burst; i++)
			t_post_nop(&qp, 1 + (i % 4), 1);
		t_ring(&qp);
		for (uint32_t i = 0; i < burst; i++) {
			uint32_t ci = cq.ci;
			const uint8_t *e = (const uint8_t *)cq.v.buf + (size_t)(ci & (n - 1)) * 64;

			if (!t_poll(&cq, cqe, 2000000000ull)) {
				CHECK(0, "log %u: no CQE %llu", log_n, (unsigned long long)done);
				bad = 1;
				break;
			}
			if (mx_cqe_opcode(cqe) != MX_CQE_REQ || mx_cqe_owner(e) != ((ci >> log_n) & 1) ||
			    mx_cqe_wqe_counter(cqe) != (uint16_t)(first + i) ||
			    mx_cqe_qpn(cqe) != qp.v.qpn || mx_cqe_sop(cqe) != MX_OPCODE_NOP) {
				CHECK(0, "log %u CQE %u: opcode %u owner %u (want %u) counter %u (want %u) qpn 0x%x",
				      log_n, ci, mx_cqe_opcode(cqe), mx_cqe_owner(e), (ci >> log_n) & 1,
				      mx_cqe_wqe_counter(cqe), (uint16_t)(first + i), mx_cqe_qpn(cqe));
				bad = 1;
				break;
			}
			done++;
		}
	}
	/* The next slot still carries the previous lap's owner. */
	{
		const uint8_t *e = (const uint8_t *)cq.v.buf + (size_t)(cq.ci & (n - 1)) * 64;

		CHECK(!mx_cqe_is_valid(e, cq.ci, log_n), "log %u: slot after the last CQE looks valid",
		      log_n);
	}
	t_expect_no_cqe(&cq, 200);
	int in_err = -1;

	OK(marrow_emu_cq_status(cq.cq, &in_err));
	CHECK(in_err == 0, "log %u: CQ in error although the poller kept up", log_n);
	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	printf("  log_cqe_cnt %2u: %llu CQEs over %.1f laps ok\n", log_n, (unsigned long long)done,
	       (double)done / n);
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;

	OK(marrow_emu_pd_alloc(dev, &pd));
	for (uint32_t log_n = 0; log_n <= 16; log_n++)
		run_size(dev, pd, log_n);
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	return t_finish("test_softnic_owner");
}
