/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Chaining. Requests are queued before the workers start, so the worker's
 * first passes see a known backlog:
 *  - B = 32 with 5 pending: one chain of 5 (B larger than what is pending),
 *    the SQ holds WQEs 0..4 with only the last one signaled, one CQE;
 *  - B = 8 with 20 pending: chains of 8, 8 and 4, three doorbells.
 * The WQEs are read back from the SQ to check what the worker built.
 */
#include "marrow/mlx5_wqe.h"
#include "test_proxy_rig.h"

static void backlog(uint32_t batch, uint32_t pending, uint32_t expect_chains)
{
	struct rig r;
	struct marrow_proxy_worker_stats st = { .size = sizeof(st) };
	uint64_t half, db0;

	rig_open(&r, 1, 1, 6, batch, MARROW_PROXY_TUNED, 6, 65536);
	half = r.len / 2;
	for (uint32_t k = 0; k < pending; k++) {
		uint64_t v = 0x1111000000000000ull + k;

		memcpy(r.buf + 64 * k, &v, 8);
		OK(marrow_proxy_enqueue(r.px, 0, 64 * k, (uint32_t)(half + 64 * k), 8, 0, 1000000000ull, NULL));
	}
	db0 = rig_counter(&r, "emu_doorbells_observed");
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_wait(r.px, 0, pending, 5000000000ull));
	OK(marrow_proxy_worker_stats(r.px, 0, &st));
	CHECK(st.requests == pending);
	CHECK(st.chains == expect_chains);
	CHECK(st.cqes == expect_chains);            /* one signaled WQE per chain */
	CHECK(rig_counter(&r, "emu_doorbells_observed") - db0 <= expect_chains);
	for (uint32_t k = 0; k < pending; k++) {
		const uint8_t *wqe = (const uint8_t *)r.qv[0].sq_buf + 64 * k;
		uint32_t in_chain = k % batch, chain_len = (k / batch + 1) * batch <= pending ? batch : pending % batch;
		uint64_t v;

		CHECK(mx_ctrl_opcode(wqe) == MX_OPCODE_RDMA_WRITE);
		CHECK(mx_ctrl_wqe_idx(wqe) == k);
		CHECK(mx_ctrl_qpn(wqe) == r.qv[0].qpn);
		CHECK(mx_raddr(wqe + 16) == (uint64_t)(uintptr_t)r.buf + half + 64 * k);
		CHECK(((mx_ctrl_fm_ce_se(wqe) & MX_CTRL_CQ_UPDATE) != 0) == (in_chain == chain_len - 1));
		memcpy(&v, r.buf + half + 64 * k, 8);
		CHECK(v == 0x1111000000000000ull + k);
	}
	rig_close(&r);
}

int main(void)
{
	backlog(32, 5, 1);
	backlog(8, 20, 3);
	backlog(1, 6, 6);
	printf("test_proxy_chain: OK\n");
	return 0;
}
