/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Marrow's mlx5 verbs path (libmarrow_verbs.so, dlopened by path as Java
 * does) on the mlx5 model (MARROW_RDMA_CORE=model, docs/design/mlx5-model.md):
 * the probe sees the model, the device opens, a host-queue QP is created
 * (views from mlx5dv_init_obj) and connected to itself; Marrow's own WQE
 * writer (mlx5_wqe.h) fills the SQ, the doorbell record and the UAR, and
 * the CQE is read from the CQ view: every byte compared. Out-of-range
 * connect parameters are refused before the device, naming the parameter.
 * A bad rkey ends in an error CQE, the QP in ERR; marrow_mlx5_qp_reset and
 * a new connect bring it back with the SQ restarting at 0 and the CQ's
 * consumer index resumed. Exits 77 only when a library was not built.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "marrow/marrow_mlx5.h"
#include "marrow/marrow_verbs.h"
#include "marrow/mlx5_wqe.h"

static const char *(*last_error)(void);

#define CHECK(c)								\
	do {									\
		if (!(c)) {							\
			fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #c, \
				last_error ? last_error() : "");		\
			exit(1);						\
		}								\
	} while (0)
#define OK(e) CHECK((e) == MARROW_OK)

static struct {
	int (*probe)(struct marrow_verbs_probe_info *);
	int (*dev_open)(struct marrow_mlx5_device_attr *, struct marrow_mlx5_device **);
	int (*dev_close)(struct marrow_mlx5_device *);
	int (*mr_reg)(struct marrow_mlx5_device *, void *, uint64_t, uint32_t, struct marrow_mlx5_mr **,
		      uint32_t *, uint32_t *);
	int (*mr_dereg)(struct marrow_mlx5_mr *);
	int (*qp_create)(struct marrow_mlx5_device *, const struct marrow_mlx5_qp_attr *, struct marrow_mlx5_qp **,
			 struct marrow_qp_view *, struct marrow_cq_view *);
	int (*qp_destroy)(struct marrow_mlx5_qp *);
	int (*local_info)(struct marrow_mlx5_qp *, const struct marrow_mlx5_mr *, struct marrow_mlx5_peer_info *);
	int (*connect)(struct marrow_mlx5_qp *, const struct marrow_mlx5_peer_info *,
		       const struct marrow_mlx5_conn_params *);
	int (*reset)(struct marrow_mlx5_qp *);
	int (*state)(struct marrow_mlx5_qp *, int *);
	int (*defaults)(struct marrow_mlx5_conn_params *);
} m;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One pointer WRITE at SQ counter pi, signaled; Marrow's ordering: WQE,
 * release, DBR, doorbell. */
static void post(const struct marrow_qp_view *v, uint32_t pi, uint64_t src, uint32_t lkey, uint64_t dst,
		 uint32_t rkey, uint32_t len)
{
	uint8_t *w = (uint8_t *)v->sq_buf + (pi & (v->sq_wqe_cnt - 1)) * 64;
	uint32_t ds = mx_ds_pointer_write(1);

	CHECK(mx_set_ctrl_seg(w, (uint16_t)pi, MX_OPCODE_RDMA_WRITE, 0, v->qpn, MX_CTRL_CQ_UPDATE, (uint8_t)ds, 0,
			      0) == 0);
	mx_set_raddr_seg(w + 16, dst, rkey);
	mx_set_data_seg(w + 32, len, lkey, src);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&v->dbrec[1], mx_dbrec_send_value(pi + mx_wqebbs(ds)), __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n((uint64_t *)v->uar, mx_doorbell_value((uint16_t)(pi + mx_wqebbs(ds)), 0, v->qpn, 0),
			 __ATOMIC_RELEASE);
}

/* Waits for CQE number ci of the CQ view; returns its opcode and syndrome. */
static uint8_t wait_cqe(const struct marrow_cq_view *cv, uint32_t ci, uint8_t *synd)
{
	const uint8_t *c = (const uint8_t *)cv->buf + (ci & (cv->cqe_cnt - 1)) * 64;
	uint64_t end = now_ns() + 5000000000ull;
	uint8_t op_own;

	for (;;) {
		uint32_t w = __atomic_load_n((const uint32_t *)(c + 60), __ATOMIC_ACQUIRE); /* as published */

		memcpy(&op_own, (const uint8_t *)&w + 3, 1);
		if ((op_own >> 4) != 0xf && (op_own & 1) == ((ci / cv->cqe_cnt) & 1))
			break;
		CHECK(now_ns() < end);
	}
	*synd = c[MX_CQE_OFF_SYNDROME];
	__atomic_store_n(&cv->dbrec[0], mx_htobe32((ci + 1) & 0xffffff), __ATOMIC_RELEASE);
	return op_own >> 4;
}

int main(void)
{
#if !defined(MARROW_VERBS_SO) || !defined(MARROW_MLX5MODEL_SO)
	printf("verbs_test_mlx5model_marrow: SKIP (libmarrow_verbs.so or the mlx5 model was not built)\n");
	return 77;
#else
	struct marrow_verbs_probe_info pi = { .size = sizeof(pi) };
	struct marrow_mlx5_device_attr da = { .size = sizeof(da), .gid_index = -1 };
	struct marrow_mlx5_qp_attr qa = { .size = sizeof(qa), .log_sq_wqebb_cnt = 6, .log_cqe_cnt = 6,
					  .max_inline_data = 64, .access = 2, .placement = MARROW_MLX5_QUEUES_HOST };
	struct marrow_qp_view v = { .size = sizeof(v) };
	struct marrow_cq_view cv = { .size = sizeof(cv) };
	struct marrow_mlx5_conn_params k = { .size = sizeof(k) };
	struct marrow_mlx5_peer_info self = { .size = sizeof(self) };
	struct marrow_mlx5_device *d;
	struct marrow_mlx5_mr *mr;
	struct marrow_mlx5_qp *q;
	enum { LEN = 1 << 16 };
	uint8_t *buf = aligned_alloc(4096, LEN);
	uint32_t lkey, rkey, ci = 0;
	uint8_t synd;
	int st;
	void *h;

	setenv("MARROW_RDMA_CORE", "model", 1);
	setenv("MARROW_MLX5MODEL_LIB", MARROW_MLX5MODEL_SO, 1);
	h = dlopen(MARROW_VERBS_SO, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL && buf != NULL);
#define SYM(f, n) CHECK((*(void **)&m.f = dlsym(h, n)) != NULL)
	CHECK((*(void **)&last_error = dlsym(h, "marrow_verbs_last_error")) != NULL);
	SYM(probe, "marrow_verbs_probe");
	SYM(dev_open, "marrow_mlx5_device_open");
	SYM(dev_close, "marrow_mlx5_device_close");
	SYM(mr_reg, "marrow_mlx5_mr_reg");
	SYM(mr_dereg, "marrow_mlx5_mr_dereg");
	SYM(qp_create, "marrow_mlx5_qp_create");
	SYM(qp_destroy, "marrow_mlx5_qp_destroy");
	SYM(local_info, "marrow_mlx5_qp_local_info");
	SYM(connect, "marrow_mlx5_qp_connect");
	SYM(reset, "marrow_mlx5_qp_reset");
	SYM(state, "marrow_mlx5_qp_state");
	SYM(defaults, "marrow_mlx5_conn_params_default");

	OK(m.probe(&pi));
	CHECK(pi.device_count == 1 && pi.mlx5_device_count == 1 && strcmp(pi.first_device, "mlx5_model0") == 0);
	CHECK(strstr(pi.libibverbs_path, "libmarrow_mlx5model.so") != NULL);
	OK(m.dev_open(&da, &d));
	CHECK(strcmp(da.name, "mlx5_model0") == 0 && da.port == 1 && da.gid_index == 0);
	memset(buf, 0, LEN);
	OK(m.mr_reg(d, buf, LEN, 2, &mr, &lkey, &rkey));
	OK(m.qp_create(d, &qa, &q, &v, &cv));
	CHECK(v.sq_stride == 64 && v.sq_wqe_cnt >= 64 && v.uar != NULL && cv.cqe_size == 64);
	OK(m.local_info(q, mr, &self));

	/* out-of-range parameters: refused before the device, the QP stays in RESET */
	{
		static const struct { size_t off; uint32_t val; const char *name; } bad[] = {
			{ offsetof(struct marrow_mlx5_conn_params, timeout), 0, "timeout" },
			{ offsetof(struct marrow_mlx5_conn_params, retry_cnt), 9, "retry_cnt" },
			{ offsetof(struct marrow_mlx5_conn_params, rnr_retry), 7, "rnr_retry" },
			{ offsetof(struct marrow_mlx5_conn_params, max_rd_atomic), 32, "max_rd_atomic" },
			{ offsetof(struct marrow_mlx5_conn_params, hop_limit), 0, "hop_limit" },
			{ offsetof(struct marrow_mlx5_conn_params, sl), 16, "sl" },
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			OK(m.defaults(&k));
			memcpy((uint8_t *)&k + bad[i].off, &bad[i].val, 4);
			CHECK(m.connect(q, &self, &k) == MARROW_EINVAL);
			if (strstr(last_error(), bad[i].name) == NULL) {
				fprintf(stderr, "refusal of %s=%u does not name it: %s\n", bad[i].name, bad[i].val,
					last_error());
				return 1;
			}
			OK(m.state(q, &st));
			CHECK(st == 0);
		}
		{
			struct marrow_mlx5_peer_info p = self;

			p.qpn = 1;
			CHECK(m.connect(q, &p, NULL) == MARROW_EINVAL);
			CHECK(strstr(last_error(), "qpn") != NULL);
			p = self;
			p.psn = 1u << 24;
			CHECK(m.connect(q, &p, NULL) == MARROW_EINVAL);
			CHECK(strstr(last_error(), "PSN") != NULL);
		}
	}
	OK(m.connect(q, &self, NULL));
	OK(m.state(q, &st));
	CHECK(st == 3);

	/* 10 WRITEs through Marrow's own WQE writer and doorbell */
	for (uint32_t i = 0; i < 10; i++) {
		for (uint32_t j = 0; j < 1024; j++)
			buf[i * 1024 + j] = (uint8_t)(i * 31 + j);
		post(&v, i, (uintptr_t)(buf + i * 1024), lkey, (uintptr_t)(buf + LEN / 2 + i * 1024), rkey, 1024);
		CHECK(wait_cqe(&cv, ci++, &synd) == 0);
	}
	CHECK(memcmp(buf, buf + LEN / 2, 10 * 1024) == 0);

	/* an error CQE (bad rkey), the QP in ERR, then recovery */
	post(&v, 10, (uintptr_t)buf, lkey, (uintptr_t)(buf + LEN / 2), rkey ^ 0x3300, 64);
	CHECK(wait_cqe(&cv, ci++, &synd) == 13 && synd == 0x13); /* REQ_ERR, REMOTE_ACCESS */
	OK(m.state(q, &st));
	CHECK(st == 6);
	CHECK(m.connect(q, &self, NULL) == MARROW_EINVAL); /* connect starts from RESET */
	OK(m.reset(q));
	OK(m.state(q, &st));
	CHECK(st == 0);
	CHECK(v.dbrec[0] == 0 && v.dbrec[1] == 0);
	CHECK((mx_be32toh(cv.dbrec[0]) & 0xffffff) == ci); /* the poller's consumer index kept */
	OK(m.connect(q, &self, NULL));
	memset(buf + LEN / 2, 0, LEN / 2);
	for (uint32_t i = 0; i < 3; i++) { /* the SQ restarts at 0, the CQ goes on at ci */
		post(&v, i, (uintptr_t)(buf + i * 1024), lkey, (uintptr_t)(buf + LEN / 2 + i * 1024), rkey, 1024);
		CHECK(wait_cqe(&cv, ci++, &synd) == 0);
	}
	CHECK(memcmp(buf, buf + LEN / 2, 3 * 1024) == 0);
	CHECK(m.dev_close(d) == MARROW_EBUSY);
	OK(m.qp_destroy(q));
	OK(m.mr_dereg(mr));
	OK(m.dev_close(d));
	free(buf);
	printf("verbs_test_mlx5model_marrow: OK\n");
	return 0;
#endif
}
