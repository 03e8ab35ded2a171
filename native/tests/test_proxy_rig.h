/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Test rig for the mini-proxy C tests: a software NIC, one registered
 * buffer (loopback), one RC QP + CQ per worker connected to itself, and a
 * proxy attached to them. Teardown follows the required order: proxy
 * (workers joined) -> QPs -> CQs -> MR -> PD -> device -> buffer.
 * The engine runs in idle mode: CI hosts have two cores.
 */
#ifndef TEST_PROXY_RIG_H
#define TEST_PROXY_RIG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/marrow_common.h"   /* marrow_last_error(): the static archives' one message */
#include "marrow/marrow_proxy.h"
#include "marrow/marrow_softnic.h"
#include "marrow/proxy_ring.h"

#define CHECK(cond)                                                                               \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,     \
				__LINE__, #cond, marrow_last_error());                             \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)
#define OK(expr) CHECK((expr) == MARROW_OK)

/* ThreadSanitizer runs the threaded tests 5-15x slower and serialises the
 * spinning threads: a tenth of the messages still crosses every lap and
 * hand-off path many times, within ctest's timeout on 2 cores. */
#if defined(__SANITIZE_THREAD__)
#define PX_TEST_SCALE 10
#else
#define PX_TEST_SCALE 1
#endif

struct rig {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *mr;
	struct marrow_emu_cq *cq[MARROW_PROXY_MAX_WORKERS];
	struct marrow_emu_qp *qp[MARROW_PROXY_MAX_WORKERS];
	struct marrow_qp_view qv[MARROW_PROXY_MAX_WORKERS];
	struct marrow_proxy *px;
	uint8_t *buf;
	uint64_t len;
	uint32_t workers;
};

static inline uint64_t rig_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Builds the rig; does not start the workers (tests may pre-fill rings). */
static inline void rig_open(struct rig *r, uint32_t workers, uint32_t rings, uint32_t log_slots, uint32_t batch,
			    uint32_t handoff, uint32_t log_sq, uint64_t len)
{
	struct marrow_emu_device_attr da = { .size = sizeof(da), .poll_mode = MARROW_EMU_POLL_IDLE,
					     .engine_threads = 1, .idle_sleep_max_ns = 20000, .engine_cpu = -1,
					     .quiet = 1 };
	struct marrow_proxy_config cfg = { .size = sizeof(cfg), .workers = workers, .rings = rings,
					   .log_slots = log_slots, .batch = batch, .handoff = handoff,
					   .check_order = 1 };
	struct marrow_proxy_memory mem = { .size = sizeof(mem) };
	uint32_t lkey, rkey;

	memset(r, 0, sizeof(*r));
	r->workers = workers;
	r->len = len;
	CHECK(posix_memalign((void **)&r->buf, 4096, len) == 0);
	memset(r->buf, 0, len);
	OK(marrow_emu_device_open(&da, &r->dev));
	OK(marrow_emu_pd_alloc(r->dev, &r->pd));
	OK(marrow_emu_mr_reg(r->pd, r->buf, len, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &r->mr,
			     &lkey, &rkey));
	mem.base = (uint64_t)(uintptr_t)r->buf;
	mem.len = len;
	mem.lkey = lkey;
	mem.rkey = rkey;
	for (uint32_t w = 0; w < MARROW_PROXY_MAX_WORKERS; w++)
		cfg.cpus[w] = -1;
	OK(marrow_proxy_create(&cfg, &mem, &r->px));
	for (uint32_t w = 0; w < workers; w++) {
		struct marrow_emu_cq_attr ca = { .size = sizeof(ca), .log_cqe_cnt = log_sq };
		struct marrow_emu_qp_attr qa = { .size = sizeof(qa), .log_sq_wqebb_cnt = log_sq, .max_rq_sge = 1,
						 .max_inline_data = 64,
						 .access = MARROW_ACCESS_REMOTE_WRITE | MARROW_ACCESS_LOCAL_WRITE };
		struct marrow_cq_view cv = { .size = sizeof(cv) };
		struct marrow_proxy_softnic_qp sq = { .size = sizeof(sq) };

		r->qv[w].size = sizeof(r->qv[w]);
		OK(marrow_emu_cq_create(r->dev, &ca, &r->cq[w], &cv));
		qa.send_cq = r->cq[w];
		OK(marrow_emu_qp_create(r->pd, &qa, &r->qp[w], &r->qv[w]));
		OK(marrow_emu_qp_modify(r->qp[w], MARROW_QPS_INIT, 0));
		OK(marrow_emu_qp_modify(r->qp[w], MARROW_QPS_RTR, r->qv[w].qpn));
		OK(marrow_emu_qp_modify(r->qp[w], MARROW_QPS_RTS, 0));
		sq.qpn = r->qv[w].qpn;
		sq.sq_wqe_cnt = r->qv[w].sq_wqe_cnt;
		sq.max_inline = r->qv[w].max_inline_data;
		sq.cqe_cnt = cv.cqe_cnt;
		sq.sq_buf = r->qv[w].sq_buf;
		sq.sq_dbrec = r->qv[w].dbrec;
		sq.uar = r->qv[w].uar;
		sq.cq_buf = cv.buf;
		sq.cq_dbrec = cv.dbrec;
		OK(marrow_proxy_attach_softnic(r->px, w, &sq));
	}
}

static inline void rig_close(struct rig *r)
{
	OK(marrow_proxy_destroy(r->px));
	for (uint32_t w = 0; w < r->workers; w++)
		OK(marrow_emu_qp_destroy(r->qp[w]));
	for (uint32_t w = 0; w < r->workers; w++)
		OK(marrow_emu_cq_destroy(r->cq[w]));
	OK(marrow_emu_mr_dereg(r->mr));
	OK(marrow_emu_pd_free(r->pd));
	OK(marrow_emu_device_close(r->dev));
	free(r->buf);
}

static inline uint64_t rig_counter(struct rig *r, const char *name)
{
	uint64_t v[MARROW_EMU_CTR_COUNT];

	OK(marrow_emu_counters_read(r->dev, v, MARROW_EMU_CTR_COUNT));
	for (int i = 0; i < marrow_emu_counter_count(); i++)
		if (strcmp(marrow_emu_counter_name(i), name) == 0)
			return v[i];
	CHECK(!"unknown counter");
	return 0;
}

#endif /* TEST_PROXY_RIG_H */
