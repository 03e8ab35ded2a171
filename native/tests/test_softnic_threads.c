/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Several engine threads writing one CQ: four QPs spread over two engine
 * threads share a send CQ; every CQE must appear exactly once, per QP in SQ
 * order, with its data in place. Meanwhile a second host thread keeps the
 * control path busy (QP create/modify/destroy, MR reg/dereg, counter
 * reads), which parks and resumes the engine under load.
 */
#include <pthread.h>

#include "emu_test_util.h"

#define NQP 4

struct churn {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct t_cq *cq;
	int stop;
	int rounds;
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;
	uint8_t *buf = t_alloc(4096, 0);

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		struct marrow_emu_mr *mr;
		struct t_qp q;
		struct t_ctrs ctrs;

		OK(marrow_emu_mr_reg(c->pd, buf, 4096, MARROW_ACCESS_LOCAL_WRITE, &mr, NULL, NULL));
		t_qp_create(c->pd, c->cq, 4, 0, &q);
		t_connect(&q, q.v.qpn);
		OK(marrow_emu_counters_read(c->dev, ctrs.v, MARROW_EMU_CTR_COUNT));
		OK(marrow_emu_qp_modify(q.qp, MARROW_QPS_ERR, 0));
		OK(marrow_emu_qp_destroy(q.qp));
		OK(marrow_emu_mr_dereg(mr));
		c->rounds++;
	}
	free(buf);
	return NULL;
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 2);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *smr, *dmr;
	uint32_t lkey, rkey;
	struct t_cq cq, ccq;
	struct t_qp q[NQP];
	uint16_t next[NQP] = { 0 }, retired[NQP] = { 0 };
	uint64_t posted_batches = 0, seen = 0;
	uint8_t *src = t_alloc(1 << 16, 0), *dst = t_alloc(1 << 16, 0), *ref = t_alloc(1 << 16, 0);
	struct churn ch = { 0 };
	pthread_t tid;
	uint64_t seed = 21;
	const int rounds = 3000;
	uint8_t cqe[64];
	int bad = 0;

	for (int i = 0; i < (1 << 16); i++)
		src[i] = (uint8_t)t_rand(&seed);
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 1 << 16, MARROW_ACCESS_LOCAL_WRITE, &smr, &lkey, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 1 << 16, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
			     &dmr, NULL, &rkey));
	t_cq_create(dev, 10, 0, &cq);
	t_cq_create(dev, 4, MARROW_EMU_CQ_COLLAPSED | MARROW_EMU_CQ_OVERRUN_IGNORE, &ccq);
	for (int i = 0; i < NQP; i++)
		t_qp_create(pd, &cq, 7, 32, &q[i]);
	/* Pairs: 0 <-> 1 and 2 <-> 3, on different engine threads. */
	for (int i = 0; i < NQP; i++)
		t_connect(&q[i], q[i ^ 1].v.qpn);
	CHECK(q[0].v.qpn % 2 != q[1].v.qpn % 2, "pair shares an engine thread");

	ch.dev = dev;
	ch.pd = pd;
	ch.cq = &ccq;
	REQUIRE(pthread_create(&tid, NULL, churn_main, &ch) == 0, "pthread_create");

	for (int r = 0; r < rounds && !bad; r++) {
		/* A batch of 1..8 WRITEs on every QP; each QP writes its own
		 * 16 KiB quarter of dst; the last WQE of a batch is signaled. */
		for (int i = 0; i < NQP; i++) {
			uint32_t n = 1 + (uint32_t)(t_rand(&seed) % 8);

			if ((uint32_t)(uint16_t)(q[i].pi - retired[i]) + 2u * n > q[i].v.sq_wqe_cnt)
				continue;
			for (uint32_t k = 0; k < n; k++) {
				uint32_t off = (uint32_t)(t_rand(&seed) % (16384 - 32));
				int sig = k == n - 1;

				memcpy(ref + 16384 * i + off, src + off, 32);
				/* Inline takes 2 WQEBBs; the signaled last one is a
				 * 1-WQEBB pointer WRITE so that its CQE retires wc + 1. */
				if (!sig && (t_rand(&seed) & 1)) {
					t_post_inline(&q[i], (uint64_t)(uintptr_t)(dst + 16384 * i + off), rkey,
						      src + off, 32, sig);
				} else {
					struct t_sge sg = { (uint64_t)(uintptr_t)(src + off), 32, lkey };

					t_post_sge(&q[i], (uint64_t)(uintptr_t)(dst + 16384 * i + off), rkey, &sg,
						   1, sig);
				}
			}
			next[i] = q[i].pi;
			t_ring(&q[i]);
			posted_batches++;
		}
		/* Drain what has arrived; keep at most a few batches in flight. */
		while (seen < posted_batches && !bad) {
			if (!t_poll(&cq, cqe, 2000000000ull)) {
				CHECK(0, "round %d: CQE %llu of %llu missing", r, (unsigned long long)seen,
				      (unsigned long long)posted_batches);
				bad = 1;
				break;
			}
			int i;

			for (i = 0; i < NQP && q[i].v.qpn != mx_cqe_qpn(cqe); i++)
				;
			if (i == NQP || mx_cqe_opcode(cqe) != MX_CQE_REQ) {
				CHECK(0, "foreign or error CQE: qpn 0x%x opcode %u syndrome 0x%x",
				      mx_cqe_qpn(cqe), mx_cqe_opcode(cqe), mx_cqe_syndrome(cqe));
				bad = 1;
				break;
			}
			uint16_t wc = mx_cqe_wqe_counter(cqe);

			/* In order per QP: the counter lies ahead of what was retired. */
			if ((uint16_t)(wc - retired[i]) >= (uint16_t)(next[i] - retired[i])) {
				CHECK(0, "QP %d: CQE counter %u outside [%u, %u)", i, wc, retired[i], next[i]);
				bad = 1;
				break;
			}
			retired[i] = (uint16_t)(wc + 1);
			seen++;
			if (seen + 8 > posted_batches)
				break;
		}
	}
	while (seen < posted_batches && !bad && t_poll(&cq, cqe, 2000000000ull))
		seen++;
	__atomic_store_n(&ch.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);

	CHECK(seen == posted_batches, "%llu CQEs for %llu signaled WQEs", (unsigned long long)seen,
	      (unsigned long long)posted_batches);
	t_expect_no_cqe(&cq, 1000);
	int err = -1;

	OK(marrow_emu_cq_status(cq.cq, &err));
	CHECK(err == 0, "shared CQ in error");
	CHECK(memcmp(dst, ref, 1 << 16) == 0, "destination differs from the reference");
	for (int i = 0; i < NQP; i++)
		CHECK(t_qp_state(&q[i]) == MARROW_QPS_RTS, "QP %d left RTS", i);
	printf("  %llu CQEs from %d QPs on 2 engine threads; %d control-path rounds alongside\n",
	       (unsigned long long)seen, NQP, ch.rounds);
	CHECK(ch.rounds > 0, "the control-path thread never ran");

	for (int i = 0; i < NQP; i++)
		OK(marrow_emu_qp_destroy(q[i].qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_cq_destroy(ccq.cq));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	free(dst);
	free(ref);
	return t_finish("test_softnic_threads");
}
