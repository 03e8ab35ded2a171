/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Both handoffs deliver every request exactly once, in ring order, with the
 * right bytes at the right remote offsets, under concurrent producers:
 *  - every message carries a unique 8-byte value from a unique source slot
 *    to a unique destination slot, so a lost or misplaced write shows;
 *  - the worker checks each descriptor's tag against its ring position
 *    (check_order), so a reordered or re-read descriptor fails the worker;
 *  - the rings' consumed and completed counters and the NIC's executed
 *    WRITE count equal the number enqueued, so nothing ran twice.
 * Then the rate experiment (pattern windows, its own verification) on top.
 */
#include <pthread.h>

#include "test_proxy_rig.h"

enum { MSGS = 3000 / PX_TEST_SCALE, TIMEOUT = 5000000000ull };

struct prod {
	struct rig *r;
	uint32_t id;
	uint32_t ring;
	int rc;
};

static uint64_t value_of(uint32_t p, uint32_t k) { return 0xC0DE000000000000ull | ((uint64_t)p << 32) | (k + 1); }
static uint32_t src_of(uint32_t p, uint32_t k) { return (p * MSGS + k) * 8; }

static void *producer(void *arg)
{
	struct prod *p = arg;
	uint64_t half = p->r->len / 2;

	for (uint32_t k = 0; k < MSGS && p->rc == MARROW_OK; k++) {
		uint64_t v = value_of(p->id, k);

		memcpy(p->r->buf + src_of(p->id, k), &v, 8);
		p->rc = marrow_proxy_enqueue(p->r->px, p->ring, src_of(p->id, k), (uint32_t)(half + src_of(p->id, k)),
					     8, 0, TIMEOUT, NULL);
	}
	return NULL;
}

/* P producers; producer i uses ring i % rings (tuned: P == rings). */
static void unique_run(uint32_t handoff, uint32_t workers, uint32_t rings, uint32_t producers)
{
	struct rig r;
	struct prod pr[8];
	pthread_t t[8];
	uint64_t half, total = (uint64_t)producers * MSGS, consumed = 0, completed = 0;
	uint64_t writes0;

	rig_open(&r, workers, rings, 4, 4, handoff, 6, 2ull * producers * MSGS * 8 + 65536);
	half = r.len / 2;
	OK(marrow_proxy_start(r.px));
	writes0 = rig_counter(&r, "emu_wqe_rdma_write");
	for (uint32_t i = 0; i < producers; i++) {
		pr[i] = (struct prod){ &r, i, i % rings, MARROW_OK };
		CHECK(pthread_create(&t[i], NULL, producer, &pr[i]) == 0);
	}
	for (uint32_t i = 0; i < producers; i++) {
		pthread_join(t[i], NULL);
		OK(pr[i].rc);
	}
	for (uint32_t q = 0; q < rings; q++) {
		uint64_t tail, head = 0;

		for (uint32_t i = 0; i < producers; i++)
			head += (i % rings == q) ? MSGS : 0;
		OK(marrow_proxy_wait(r.px, q, head, TIMEOUT));
		OK(marrow_proxy_ring_counters(r.px, q, &tail, NULL));
		CHECK(tail == head);
		consumed += tail;
	}
	for (uint32_t q = 0; q < rings; q++) {
		uint64_t cpl;

		OK(marrow_proxy_ring_counters(r.px, q, NULL, &cpl));
		completed += cpl;
	}
	CHECK(consumed == total);
	CHECK(completed == total);
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") - writes0 == total);
	CHECK(rig_counter(&r, "emu_cqe_req_err") == 0);
	for (uint32_t i = 0; i < producers; i++) {
		for (uint32_t k = 0; k < MSGS; k++) {
			uint64_t got;

			memcpy(&got, r.buf + half + src_of(i, k), 8);
			if (got != value_of(i, k)) {
				fprintf(stderr, "producer %u message %u: remote holds %llx, expected %llx\n", i, k,
					(unsigned long long)got, (unsigned long long)value_of(i, k));
				exit(1);
			}
		}
	}
	/* Nothing outside the destination slots was written. */
	for (uint64_t o = half + total * 8; o < r.len; o++)
		CHECK(r.buf[o] == 0);
	for (uint32_t w = 0; w < workers; w++) {
		struct marrow_proxy_worker_stats st = { .size = sizeof(st) };

		OK(marrow_proxy_worker_stats(r.px, w, &st));
		CHECK(st.error == 0);
		CHECK(st.state == MPR_WORKER_RUNNING);
		CHECK(st.chains >= 1 && st.chains <= st.requests);
	}
	rig_close(&r);
}

static void rate_run(uint32_t handoff, uint32_t producers)
{
	struct rig r;
	uint64_t need;
	struct marrow_proxy_rate_params p = { .size = sizeof(p), .producers = producers, .msg_size = 8,
					      .messages = 20000, .warmup = 2000, .timeout_ns = TIMEOUT };
	struct marrow_proxy_rate_result res = { .size = sizeof(res) };
	uint64_t req = 0;

	OK(marrow_proxy_buffer_bytes(4, 5, 8, &need));
	rig_open(&r, 2, 4, 5, 8, handoff, 8, need);
	OK(marrow_proxy_start(r.px));
	OK(marrow_proxy_cpu_rate(r.px, &p, &res));
	CHECK(res.messages == producers * p.messages);
	CHECK(res.verify_errors == 0);
	CHECK(res.elapsed_ns > 0);
	for (uint32_t w = 0; w < 2; w++) {
		struct marrow_proxy_worker_stats st = { .size = sizeof(st) };

		OK(marrow_proxy_worker_window(r.px, w, &st));
		req += st.requests;
		CHECK(st.chains <= st.requests);
	}
	CHECK(req == res.messages);
	rig_close(&r);
}

int main(void)
{
	unique_run(MARROW_PROXY_TUNED, 2, 2, 2);
	unique_run(MARROW_PROXY_BASELINE, 2, 2, 2);
	unique_run(MARROW_PROXY_BASELINE, 1, 2, 3); /* producers share rings */
	rate_run(MARROW_PROXY_TUNED, 2);
	rate_run(MARROW_PROXY_BASELINE, 3);
	printf("test_proxy_deliver: OK\n");
	return 0;
}
