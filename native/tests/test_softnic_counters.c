/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Counters that match the traffic exactly. Each step rings once and waits
 * for its CQE before the next, so the engine sees one dbrec advance and one
 * mailbox change per step; counters are published before the CQE that
 * describes them, so reading right after the CQE is exact.
 */
#include "emu_test_util.h"

static struct t_ctrs prev;

static struct t_ctrs step(struct marrow_emu_device *dev)
{
	struct t_ctrs now = t_counters_settled(dev), d;

	for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
		d.v[i] = now.v[i] - prev.v[i];
	prev = now;
	return d;
}

#define EXPECT(d, name, val)                                                        \
	CHECK((d).v[MARROW_EMU_CTR_##name] == (uint64_t)(val), "%s: emu_%s = %llu, expected %llu", \
	      what, #name, (unsigned long long)(d).v[MARROW_EMU_CTR_##name], (unsigned long long)(val))

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *smr, *dmr;
	uint32_t lkey, rkey;
	struct t_cq cq;
	struct t_qp qp;
	uint8_t *src = t_alloc(8192, 0x11), *dst = t_alloc(8192, 0);
	struct t_ctrs d;
	const char *what;
	uint16_t last = 0;

	/* Names and order come from the X-macro. */
	CHECK(marrow_emu_counter_count() == MARROW_EMU_CTR_COUNT && MARROW_EMU_CTR_COUNT == 35,
	      "counter count %d", marrow_emu_counter_count());
	CHECK(strcmp(marrow_emu_counter_name(0), "emu_doorbells_observed") == 0, "name 0 %s",
	      marrow_emu_counter_name(0));
	CHECK(strcmp(marrow_emu_counter_name(MARROW_EMU_CTR_idle_passes), "emu_idle_passes") == 0,
	      "idle_passes name %s", marrow_emu_counter_name(MARROW_EMU_CTR_idle_passes));
	CHECK(strcmp(marrow_emu_counter_name(MARROW_EMU_CTR_COUNT - 1), "emu_synd_transport_retry_exc") == 0,
	      "last name %s", marrow_emu_counter_name(MARROW_EMU_CTR_COUNT - 1));
	CHECK(strcmp(marrow_emu_counter_name(MARROW_EMU_CTR_cq_overruns), "emu_cq_overruns") == 0,
	      "cq_overruns name");
	CHECK(marrow_emu_counter_name(-1) == NULL && marrow_emu_counter_name(35) == NULL,
	      "out-of-range names are not NULL");

	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 8192, MARROW_ACCESS_LOCAL_WRITE, &smr, &lkey, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 8192, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dmr,
			     NULL, &rkey));
	t_cq_create(dev, 6, 0, &cq);
	t_qp_create(pd, &cq, 5, 64, &qp);   /* 32 WQEBBs */
	t_connect(&qp, qp.v.qpn);
	t_sleep_us(2000);
	d = step(dev);
	what = "idle";
	EXPECT(d, doorbells_observed, 0);
	EXPECT(d, wqebb_fetched, 0);

	what = "5 inline WRITEs";
	for (int i = 0; i < 5; i++)
		last = t_post_inline(&qp, (uint64_t)(uintptr_t)(dst + 8 * i), rkey, src, 8, i == 4);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, NULL);
	d = step(dev);
	EXPECT(d, doorbells_observed, 1);
	EXPECT(d, dbrec_advances, 1);
	EXPECT(d, wqebb_fetched, 5);
	EXPECT(d, fetch_runs, 1);
	EXPECT(d, wqe_rdma_write, 5);
	EXPECT(d, wqe_nop, 0);
	EXPECT(d, inline_bytes, 40);
	EXPECT(d, gather_bytes, 0);
	EXPECT(d, payload_bytes_tx, 40);
	EXPECT(d, payload_bytes_rx, 40);
	EXPECT(d, cqe_req, 1);
	EXPECT(d, cqe_req_err, 0);
	CHECK(d.v[MARROW_EMU_CTR_busy_passes] >= 1, "no busy pass counted");

	what = "3 two-SGE WRITEs";
	for (int i = 0; i < 3; i++) {
		struct t_sge sg[2] = { { (uint64_t)(uintptr_t)src, 60, lkey },
				       { (uint64_t)(uintptr_t)(src + 100), 40, lkey } };

		last = t_post_sge(&qp, (uint64_t)(uintptr_t)(dst + 1000 + 100 * i), rkey, sg, 2, i == 2);
	}
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, NULL);
	d = step(dev);
	EXPECT(d, doorbells_observed, 1);
	EXPECT(d, dbrec_advances, 1);
	EXPECT(d, wqebb_fetched, 3);
	EXPECT(d, wqe_rdma_write, 3);
	EXPECT(d, gather_bytes, 300);
	EXPECT(d, inline_bytes, 0);
	EXPECT(d, payload_bytes_tx, 300);
	EXPECT(d, cqe_req, 1);

	what = "2 signaled NOPs + 1 multi-WQEBB inline";
	t_post_nop(&qp, 2, 1);
	t_post_inline(&qp, (uint64_t)(uintptr_t)(dst + 2000), rkey, src, 60, 0);   /* 2 WQEBBs */
	last = t_post_nop(&qp, 1, 1);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, (uint16_t)(last - 3), NULL);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, NULL);
	d = step(dev);
	EXPECT(d, wqebb_fetched, 4);
	EXPECT(d, wqe_nop, 2);
	EXPECT(d, wqe_rdma_write, 1);
	EXPECT(d, inline_bytes, 60);
	EXPECT(d, cqe_req, 2);

	what = "batch across the ring end";
	/* pi is 12; fill to 28, then a 10-WQEBB batch wraps: two fetch runs. */
	while (qp.pi % 32 != 28)
		t_post_nop(&qp, 1, 0);
	last = t_post_nop(&qp, 1, 1);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, NULL);
	d = step(dev);
	EXPECT(d, fetch_runs, 1);
	for (int i = 0; i < 10; i++)
		last = t_post_nop(&qp, 1, i == 9);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, NULL);
	d = step(dev);
	EXPECT(d, fetch_runs, 2);
	EXPECT(d, wqebb_fetched, 10);
	EXPECT(d, wqe_nop, 10);
	EXPECT(d, dbrec_advances, 1);

	what = "doorbell on the second BlueFlame half";
	last = t_post_nop(&qp, 1, 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&qp.v.dbrec[MX_DBR_SND], mx_dbrec_send_value(qp.pi), __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)((uint8_t *)qp.v.uar + 256), mx_doorbell_value(last, 0, qp.v.qpn, 1),
			 __ATOMIC_RELEASE);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, NULL);
	d = step(dev);
	EXPECT(d, doorbells_observed, 1);
	EXPECT(d, dbrec_advances, 1);

	/* Like a ConnectX, the engine acts on a doorbell, not on a dbrec alone. */
	what = "dbrec without doorbell";
	last = t_post_nop(&qp, 1, 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&qp.v.dbrec[MX_DBR_SND], mx_dbrec_send_value(qp.pi), __ATOMIC_RELAXED);
	t_expect_no_cqe(&cq, 20000);
	d = step(dev);
	EXPECT(d, doorbells_observed, 0);
	EXPECT(d, dbrec_advances, 0);
	EXPECT(d, wqe_nop, 0);

	what = "the doorbell that follows";
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, NULL);
	d = step(dev);
	EXPECT(d, doorbells_observed, 1);
	EXPECT(d, dbrec_advances, 1);
	EXPECT(d, wqe_nop, 1);

	what = "one error";
	last = t_post_inline(&qp, (uint64_t)(uintptr_t)dst, rkey + 1, src, 8, 0);
	t_post_nop(&qp, 1, 0);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ_ERR, MX_SYND_REMOTE_ACCESS, qp.v.qpn, last, NULL);
	t_expect_cqe(&cq, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, qp.v.qpn, (uint16_t)(last + 1), NULL);
	d = step(dev);
	EXPECT(d, cqe_req_err, 2);
	EXPECT(d, synd_remote_access, 1);
	EXPECT(d, synd_wr_flush, 1);
	EXPECT(d, wqe_rdma_write, 1);
	EXPECT(d, wqe_nop, 0);
	EXPECT(d, payload_bytes_tx, 0);
	EXPECT(d, cqe_req, 0);

	/* Idle passes accumulate while nothing happens. */
	t_sleep_us(20000);
	d = step(dev);
	CHECK(d.v[MARROW_EMU_CTR_idle_passes] > 0, "no idle passes counted in 20 ms");
	CHECK(d.v[MARROW_EMU_CTR_busy_passes] == 0, "busy passes while idle: %llu",
	      (unsigned long long)d.v[MARROW_EMU_CTR_busy_passes]);

	/* Argument checks. */
	{
		uint64_t v[40];

		FAILS(MARROW_EINVAL, marrow_emu_counters_read(dev, v, 36));
		FAILS(MARROW_EINVAL, marrow_emu_counters_read(dev, NULL, 3));
		FAILS(MARROW_EINVAL, marrow_emu_counters_read(NULL, v, 3));
		OK(marrow_emu_counters_read(dev, v, 2));
	}

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	free(dst);
	return t_finish("test_softnic_counters");
}
