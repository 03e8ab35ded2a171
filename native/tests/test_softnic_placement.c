/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Explicit engine placement (marrow_emu_qp_set_engine): a QP moved to
 * another engine thread is reported there and still executes WRITEs (in
 * RESET before connecting, and in RTS between WRITEs); out-of-range
 * threads and QPs sharing a doorbell page are refused and leave the QP
 * where it was.
 */
#include "emu_test_util.h"

static void write_one(struct t_qp *q, struct t_cq *cq, uint8_t *dst, uint32_t rkey, uint64_t word)
{
	uint16_t c = t_post_inline(q, (uint64_t)(uintptr_t)dst, rkey, &word, 8, 1);

	t_ring(q);
	t_expect_cqe(cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	CHECK(memcmp(dst, &word, 8) == 0, "QP 0x%x: WRITE of 0x%llx not in place", q->v.qpn,
	      (unsigned long long)word);
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 3);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *mr;
	uint32_t rkey, th = 99;
	struct t_cq cq;
	struct t_qp a, b;
	uint8_t *dst = t_alloc(4096, 0);
	void *uar;

	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, dst, 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mr, NULL, &rkey));
	t_cq_create(dev, 6, 0, &cq);
	t_qp_create(pd, &cq, 6, 32, &a);
	t_qp_create(pd, &cq, 6, 32, &b);

	OK(marrow_emu_qp_engine(a.qp, &th));
	CHECK(th == a.v.qpn % 3, "default placement: thread %u, expected qpn %% 3 = %u", th, a.v.qpn % 3);
	FAILS(MARROW_EINVAL, marrow_emu_qp_engine(a.qp, NULL));
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_engine(a.qp, 3));
	OK(marrow_emu_qp_engine(a.qp, &th));
	CHECK(th == a.v.qpn % 3, "a refused move changed the placement to %u", th);

	/* In RESET: move, then connect and write. */
	uint32_t to = (a.v.qpn + 1) % 3;

	OK(marrow_emu_qp_set_engine(a.qp, to));
	OK(marrow_emu_qp_engine(a.qp, &th));
	CHECK(th == to, "after set_engine(%u): thread %u", to, th);
	t_connect(&a, a.v.qpn);
	write_one(&a, &cq, dst, rkey, 0x1111222233334444ull);

	/* In RTS, between WRITEs: move again, same QP keeps working. */
	to = (to + 1) % 3;
	OK(marrow_emu_qp_set_engine(a.qp, to));
	OK(marrow_emu_qp_engine(a.qp, &th));
	CHECK(th == to, "after the RTS move: thread %u, expected %u", th, to);
	write_one(&a, &cq, dst + 8, rkey, 0x5555666677778888ull);
	OK(marrow_emu_qp_set_engine(a.qp, to)); /* no move: fine */

	/* b on a's doorbell page: one engine thread serves the page, so b follows
	 * a there and neither may leave alone. */
	OK(marrow_emu_qp_share_uar(b.qp, a.qp, &uar));
	OK(marrow_emu_qp_engine(b.qp, &th));
	CHECK(th == to, "b on a's page served by thread %u, a by %u", th, to);
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_engine(b.qp, (to + 1) % 3));
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_engine(a.qp, (to + 1) % 3));
	OK(marrow_emu_qp_engine(a.qp, &th));
	CHECK(th == to, "refused page move left a on thread %u", th);

	OK(marrow_emu_qp_destroy(b.qp));
	OK(marrow_emu_qp_destroy(a.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(mr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(dst);
	return t_finish("test_softnic_placement");
}
