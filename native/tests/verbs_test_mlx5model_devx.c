/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Marrow's DevX path (libmarrow_verbs.so, dlopened by path) on the mlx5
 * model (MARROW_RDMA_CORE=model, docs/design/mlx5-model.md §5), with host
 * memory as the "GPU" memory of the queues: the context opens with DevX,
 * the caps are queried, umems, a UAR, CREATE_CQ and CREATE_QP build a QP
 * whose rings are the caller's memory; it connects to itself through the
 * DevX state commands, WRITEs posted by Marrow's own WQE writer through the
 * UAR land (every byte compared); a bad rkey's error CQE moves it to ERR
 * and marrow_mlx5_gpu_qp_reset + connect bring it back with indexes resumed.
 * The model's decoder refuses, firmware-style, an SQ above the caps (status
 * and syndrome surfaced in Marrow's message), a bad opcode, older firmware's
 * free-running timestamps (Marrow then asks DEFAULT and succeeds), and on a
 * bonded RoCE port Marrow's LAG affinity and address path pass. Exits 77
 * only when a library was not built.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "marrow/marrow_mlx5.h"
#include "marrow/marrow_verbs.h"
#include "marrow/mlx5_wqe.h"
#include <infiniband/mlx5dv.h>

static const char *(*last_error)(void);
static const char *(*model_why)(void);

#define CHECK(c)								\
	do {									\
		if (!(c)) {							\
			fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s; model: %s)\n", __FILE__, \
				__LINE__, #c, last_error ? last_error() : "", model_why ? model_why() : ""); \
			exit(1);						\
		}								\
	} while (0)
#define OK(e) CHECK((e) == MARROW_OK)

static struct {
	int (*dev_open)(struct marrow_mlx5_device_attr *, struct marrow_mlx5_device **);
	int (*dev_close)(struct marrow_mlx5_device *);
	int (*devx_check)(struct marrow_mlx5_device *);
	int (*mr_reg)(struct marrow_mlx5_device *, void *, uint64_t, uint32_t, struct marrow_mlx5_mr **,
		      uint32_t *, uint32_t *);
	int (*mr_dereg)(struct marrow_mlx5_mr *);
	int (*open)(struct marrow_mlx5_device *, const struct marrow_mlx5_qp_attr *,
		    const struct marrow_mlx5_gpu_mem_ops *, struct marrow_mlx5_gpu_qp **, struct marrow_qp_view *,
		    struct marrow_cq_view *, char *, uint32_t);
	int (*local_info)(struct marrow_mlx5_gpu_qp *, const struct marrow_mlx5_mr *, struct marrow_mlx5_peer_info *);
	int (*connect)(struct marrow_mlx5_gpu_qp *, const struct marrow_mlx5_peer_info *,
		       const struct marrow_mlx5_conn_params *);
	int (*reset)(struct marrow_mlx5_gpu_qp *);
	int (*indexes)(struct marrow_mlx5_gpu_qp *, uint32_t *, uint32_t *);
	int (*destroy)(struct marrow_mlx5_gpu_qp *);
	int (*general)(void *, const void *, size_t, void *, size_t);
} m;

static int h_alloc(void *ctx, uint64_t len, void **p) { (void)ctx; return posix_memalign(p, 4096, len); }
static int h_free(void *ctx, void *p) { (void)ctx; free(p); return 0; }
static int h_copy(void *ctx, void *dst, const void *src, size_t n) { (void)ctx; memcpy(dst, src, n); return 0; }

static const struct marrow_mlx5_gpu_mem_ops host_ops = { .size = sizeof(host_ops), .alloc = h_alloc,
							 .free = h_free, .to_gpu = h_copy, .from_gpu = h_copy };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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

static struct marrow_mlx5_device *open_dev(const char *caps)
{
	struct marrow_mlx5_device_attr da = { .size = sizeof(da), .gid_index = -1 };
	struct marrow_mlx5_device *d;

	setenv("MARROW_MLX5MODEL", caps, 1);
	OK(m.dev_open(&da, &d));
	OK(m.devx_check(d));
	return d;
}

/* Create, connect to itself, run, fail, recover; on the given caps. */
static void run(const char *caps)
{
	struct marrow_mlx5_qp_attr qa = { .size = sizeof(qa), .log_sq_wqebb_cnt = 6, .log_cqe_cnt = 6,
					  .max_inline_data = 64, .access = 2, .placement = MARROW_MLX5_QUEUES_GPU };
	struct marrow_qp_view v = { .size = sizeof(v) };
	struct marrow_cq_view cv = { .size = sizeof(cv) };
	struct marrow_mlx5_peer_info self = { .size = sizeof(self) };
	struct marrow_mlx5_device *d = open_dev(caps);
	struct marrow_mlx5_gpu_qp *q;
	struct marrow_mlx5_mr *mr;
	enum { LEN = 1 << 16 };
	uint8_t *buf = aligned_alloc(4096, LEN);
	uint32_t lkey, rkey, ci = 0, sq_pi, cq_ci;
	char note[200] = "";
	uint8_t synd;

	CHECK(buf != NULL);
	memset(buf, 0, LEN);
	OK(m.mr_reg(d, buf, LEN, 2, &mr, &lkey, &rkey));
	OK(m.open(d, &qa, &host_ops, &q, &v, &cv, note, sizeof(note)));
	CHECK(v.sq_wqe_cnt == 64 && cv.cqe_cnt == 64 && v.uar != NULL);
	OK(m.local_info(q, mr, &self));
	OK(m.connect(q, &self, NULL));
	for (uint32_t i = 0; i < 6; i++) {
		for (uint32_t j = 0; j < 2048; j++)
			buf[i * 2048 + j] = (uint8_t)(i * 13 + j * 3);
		post(&v, i, (uintptr_t)(buf + i * 2048), lkey, (uintptr_t)(buf + LEN / 2 + i * 2048), rkey, 2048);
		CHECK(wait_cqe(&cv, ci++, &synd) == 0);
	}
	CHECK(memcmp(buf, buf + LEN / 2, 6 * 2048) == 0);
	/* error CQE, ERR, recovery with the indexes resumed */
	post(&v, 6, (uintptr_t)buf, lkey, (uintptr_t)(buf + LEN / 2), rkey ^ 0x7700, 64);
	CHECK(wait_cqe(&cv, ci++, &synd) == 13 && synd == 0x13);
	OK(m.reset(q));
	OK(m.indexes(q, &sq_pi, &cq_ci));
	CHECK(sq_pi == 0 && cq_ci == ci);
	OK(m.connect(q, &self, NULL));
	memset(buf + LEN / 2, 0, LEN / 2);
	for (uint32_t i = 0; i < 3; i++) {
		post(&v, i, (uintptr_t)(buf + i * 2048), lkey, (uintptr_t)(buf + LEN / 2 + i * 2048), rkey, 2048);
		CHECK(wait_cqe(&cv, ci++, &synd) == 0);
	}
	CHECK(memcmp(buf, buf + LEN / 2, 3 * 2048) == 0);
	OK(m.destroy(q));
	OK(m.mr_dereg(mr));
	OK(m.dev_close(d));
	free(buf);
	printf("  DevX QP on caps '%s': created, connected, ran, recovered\n", caps);
}

/* An SQ above the caps: the model refuses CREATE_QP; Marrow says which command, status and syndrome. */
static void refusal(void)
{
	struct marrow_mlx5_qp_attr qa = { .size = sizeof(qa), .log_sq_wqebb_cnt = 8, .log_cqe_cnt = 6,
					  .max_inline_data = 64, .access = 2, .placement = MARROW_MLX5_QUEUES_GPU };
	struct marrow_qp_view v = { .size = sizeof(v) };
	struct marrow_cq_view cv = { .size = sizeof(cv) };
	struct marrow_mlx5_device *d = open_dev("max_qp_wr=128");
	struct marrow_mlx5_gpu_qp *q;
	int rc = m.open(d, &qa, &host_ops, &q, &v, &cv, NULL, 0);

	CHECK(rc != MARROW_OK);
	printf("  expected refusal: %s\n", last_error());
	CHECK(strstr(last_error(), "CREATE_QP") != NULL && strstr(last_error(), "status 0x3") != NULL);
	CHECK(strstr(last_error(), "0x4d4d0031") != NULL); /* the model's log_sq_size syndrome */
	CHECK(strstr(model_why(), "log_sq_size 8") != NULL);
	OK(m.dev_close(d));
}

/* The decoder alone, boxes built here: a bad opcode, the caps of a bonded
 * RoCE device with older timestamps, and DevX refused on a verbs context. */
static void decoder(void *mh)
{
	struct ibv_device **(*list)(int *);
	struct ibv_context *(*dv_open)(struct ibv_device *, struct mlx5dv_context_attr *);
	struct ibv_context *(*open)(struct ibv_device *);
	int (*close)(struct ibv_context *);
	struct mlx5dv_context_attr a = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	void (*free_list)(struct ibv_device **);
	struct ibv_device **devs;
	struct ibv_context *ctx;
	uint8_t in[16], out[16 + 4096];
	int n;

	CHECK((*(void **)&list = dlsym(mh, "ibv_get_device_list")) != NULL);
	CHECK((*(void **)&dv_open = dlsym(mh, "mlx5dv_open_device")) != NULL);
	CHECK((*(void **)&open = dlsym(mh, "ibv_open_device")) != NULL);
	CHECK((*(void **)&close = dlsym(mh, "ibv_close_device")) != NULL);
	CHECK((*(void **)&free_list = dlsym(mh, "ibv_free_device_list")) != NULL);
	devs = list(&n);
	CHECK(devs != NULL && n == 1);
	setenv("MARROW_MLX5MODEL", "link=roce,lag=1,ts=default,max_rd_atomic=8", 1);
	ctx = dv_open(devs[0], &a);
	CHECK(ctx != NULL);
	memset(in, 0, sizeof(in));
	in[0] = 0x07; /* opcode 0x777: none the model knows */
	in[1] = 0x77;
	CHECK(m.general(ctx, in, sizeof(in), out, sizeof(out)) == EREMOTEIO);
	CHECK(out[0] == 0x02 && mx_be32toh(*(uint32_t *)(out + 4)) == 0x4d4d0001); /* BAD_OP, the model's syndrome */
	/* QUERY_HCA_CAP, general caps, current (op_mod 1): dword 0x80/32 + n of the out box */
	{
		static uint8_t cap[16 + 4096];

		memset(in, 0, sizeof(in));
		in[0] = 0x01; /* 0x100 */
		in[7] = 0x01;
		CHECK(m.general(ctx, in, sizeof(in), cap, sizeof(cap)) == 0 && cap[0] == 0);
		/* num_lag_ports (cap bit 0x27c, 4 bits) = 2; sq_ts_format (0x440, 2 bits) = 1, real time only */
		CHECK(((mx_be32toh(*(uint32_t *)(cap + 16 + 0x260 / 8)) >> 0) & 0xf) == 2);
		CHECK((mx_be32toh(*(uint32_t *)(cap + 16 + 0x440 / 8)) >> 30) == 1);
		/* log_max_ra_res_qp (0x15a, 6 bits) = 3 for 8 */
		CHECK(((mx_be32toh(*(uint32_t *)(cap + 16 + 0x140 / 8)) >> 0) & 0x3f) == 3);
	}
	CHECK(close(ctx) == 0);
	unsetenv("MARROW_MLX5MODEL");
	ctx = open(devs[0]);
	CHECK(ctx != NULL);
	CHECK(m.general(ctx, in, sizeof(in), out, sizeof(out)) == EOPNOTSUPP); /* not a DevX context */
	CHECK(close(ctx) == 0);
	free_list(devs);
	printf("  decoder: bad opcode, caps and a verbs-only context answered as firmware would\n");
}

/* Bit fields of a PRM box, big-endian bit numbering (mlx5_ifc.h layouts):
 * the test builds its own boxes for refusals Marrow never provokes. */
static void put(uint8_t *box, uint32_t off, uint32_t w, uint32_t v)
{
	uint32_t dw, sh = 32 - off % 32 - w, mask = (w == 32 ? ~0u : ((1u << w) - 1) << sh);

	memcpy(&dw, box + off / 32 * 4, 4);
	dw = mx_be32toh(dw);
	dw = (dw & ~mask) | ((w == 32 ? v : v << sh) & mask);
	dw = mx_htobe32(dw);
	memcpy(box + off / 32 * 4, &dw, 4);
}

static uint32_t status_of(const uint8_t *out) { return out[0]; }
static uint32_t synd_of(const uint8_t *out) { uint32_t v; memcpy(&v, out + 4, 4); return mx_be32toh(v); }

/* Wrong state transitions, LAG without affinity and a RoCE path without a
 * MAC, on objects built from hand-made boxes (bonded RoCE caps). */
static void transitions(void *mh)
{
	struct ibv_device **(*list)(int *);
	void (*free_list)(struct ibv_device **);
	struct ibv_context *(*dv_open)(struct ibv_device *, struct mlx5dv_context_attr *);
	int (*close)(struct ibv_context *);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *);
	int (*dealloc_pd)(struct ibv_pd *);
	int (*init_obj)(struct mlx5dv_obj *, uint64_t);
	struct mlx5dv_devx_umem *(*umem_reg)(struct ibv_context *, void *, size_t, uint32_t);
	int (*umem_dereg)(struct mlx5dv_devx_umem *);
	struct mlx5dv_devx_uar *(*alloc_uar)(struct ibv_context *, uint32_t);
	void (*free_uar)(struct mlx5dv_devx_uar *);
	struct mlx5dv_devx_obj *(*create)(struct ibv_context *, const void *, size_t, void *, size_t);
	int (*modify)(struct mlx5dv_devx_obj *, const void *, size_t, void *, size_t);
	int (*destroy)(struct mlx5dv_devx_obj *);
	struct mlx5dv_context_attr a = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct mlx5dv_pd dpd;
	struct mlx5dv_obj o;
	struct ibv_device **devs;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct mlx5dv_devx_umem *um;
	struct mlx5dv_devx_uar *uar;
	struct mlx5dv_devx_obj *cq, *qp;
	uint8_t in[272], out[272], *mem;
	uint32_t cqn, qpn;
	int n;

#define MSYM(v, name) CHECK((*(void **)&v = dlsym(mh, name)) != NULL)
	MSYM(list, "ibv_get_device_list");
	MSYM(free_list, "ibv_free_device_list");
	MSYM(dv_open, "mlx5dv_open_device");
	MSYM(close, "ibv_close_device");
	MSYM(alloc_pd, "ibv_alloc_pd");
	MSYM(dealloc_pd, "ibv_dealloc_pd");
	MSYM(init_obj, "mlx5dv_init_obj");
	MSYM(umem_reg, "mlx5dv_devx_umem_reg");
	MSYM(umem_dereg, "mlx5dv_devx_umem_dereg");
	MSYM(alloc_uar, "mlx5dv_devx_alloc_uar");
	MSYM(free_uar, "mlx5dv_devx_free_uar");
	MSYM(create, "mlx5dv_devx_obj_create");
	MSYM(modify, "mlx5dv_devx_obj_modify");
	MSYM(destroy, "mlx5dv_devx_obj_destroy");
	setenv("MARROW_MLX5MODEL", "link=roce,lag=1", 1);
	devs = list(&n);
	ctx = dv_open(devs[0], &a);
	CHECK(ctx != NULL && (pd = alloc_pd(ctx)) != NULL);
	memset(&o, 0, sizeof(o));
	o.pd.in = pd;
	o.pd.out = &dpd;
	CHECK(init_obj(&o, MLX5DV_OBJ_PD) == 0);
	CHECK(posix_memalign((void **)&mem, 4096, 3 * 4096) == 0);
	memset(mem, 0, 3 * 4096);
	um = umem_reg(ctx, mem, 3 * 4096, 1);
	uar = alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	CHECK(um != NULL && uar != NULL);
	/* CREATE_CQ 0x400: 64 CQEs at umem offset 4096, doorbell record at 8192 + 64 */
	memset(in, 0, sizeof(in));
	put(in, 0x00, 16, 0x400);
	put(in, 0x80 + 0x06, 1, 1);           /* dbr_umem_valid */
	put(in, 0x80 + 0x20, 32, um->umem_id);
	put(in, 0x80 + 0x63, 5, 6);           /* log_cq_size */
	put(in, 0x80 + 0x68, 24, uar->page_id);
	put(in, 0x80 + 0xa0, 32, 7);          /* the EQ query_eqn gives */
	put(in, 0x80 + 0x1c0 + 32, 32, 8192 + 64);
	put(in, 0x280 + 32, 32, 4096);        /* cq_umem_offset */
	put(in, 0x2c0, 32, um->umem_id);
	put(in, 0x2e0, 1, 1);
	cq = create(ctx, in, sizeof(in), out, sizeof(out));
	CHECK(cq != NULL && status_of(out) == 0);
	memcpy(&cqn, out + 8, 4);
	cqn = mx_be32toh(cqn) & 0xffffff;
	/* CREATE_QP 0x500: RC, 64 WQEBBs at offset 0, zero-size RQ, doorbell record at 8192 */
	memset(in, 0, sizeof(in));
	put(in, 0x00, 16, 0x500);
	put(in, 0xe8, 24, dpd.pdn);
	put(in, 0x111, 4, 6);
	put(in, 0x128, 24, uar->page_id);
	put(in, 0x4a8, 24, cqn);
	put(in, 0x5a8, 24, cqn);
	put(in, 0x5c0 + 32, 32, 8192);
	put(in, 0x625, 3, 3);
	put(in, 0x743, 1, 1);
	put(in, 0x7e0, 32, um->umem_id);
	put(in, 0x840, 32, um->umem_id);
	put(in, 0x860, 1, 1);
	qp = create(ctx, in, sizeof(in), out, sizeof(out));
	CHECK(qp != NULL && status_of(out) == 0);
	memcpy(&qpn, out + 8, 4);
	qpn = mx_be32toh(qpn) & 0xffffff;
	/* INIT2RTR from RESET: the wrong state */
	memset(in, 0, sizeof(in));
	put(in, 0x00, 16, 0x503);
	put(in, 0x48, 24, qpn);
	CHECK(modify(qp, in, sizeof(in), out, sizeof(out)) == EREMOTEIO);
	CHECK(status_of(out) == 0x10 && synd_of(out) == 0x4d4d0040); /* BAD_QP_STATE */
	/* RST2INIT on a bonded port without lag_tx_port_affinity: accepted here, refused at INIT2RTR */
	put(in, 0x00, 16, 0x502);
	put(in, 0x2a8, 8, 1);                 /* vhca_port_num */
	CHECK(modify(qp, in, sizeof(in), out, sizeof(out)) == 0 && status_of(out) == 0);
	CHECK(modify(qp, in, sizeof(in), out, sizeof(out)) == EREMOTEIO && status_of(out) == 0x10);
	memset(in, 0, sizeof(in));
	put(in, 0x00, 16, 0x503);
	put(in, 0x48, 24, qpn);
	put(in, 0x100, 3, 3);                 /* mtu 1024 */
	put(in, 0x168, 24, qpn);
	CHECK(modify(qp, in, sizeof(in), out, sizeof(out)) == EREMOTEIO);
	CHECK(status_of(out) == 0x3 && synd_of(out) == 0x4d4d0049); /* LAG without affinity */
	/* back to RESET, RST2INIT with affinity 1, then INIT2RTR on RoCE without a MAC */
	memset(in, 0, sizeof(in));
	put(in, 0x00, 16, 0x50a);
	put(in, 0x48, 24, qpn);
	CHECK(modify(qp, in, 16, out, 16) == 0);
	memset(in, 0, sizeof(in));
	put(in, 0x00, 16, 0x502);
	put(in, 0x48, 24, qpn);
	put(in, 0xc4, 4, 1);
	put(in, 0x2a8, 8, 1);
	CHECK(modify(qp, in, sizeof(in), out, sizeof(out)) == 0);
	memset(in, 0, sizeof(in));
	put(in, 0x00, 16, 0x503);
	put(in, 0x48, 24, qpn);
	put(in, 0x100, 3, 3);
	put(in, 0x168, 24, qpn);
	put(in, 0x1d8, 8, 64);                /* hop_limit; rgid, rmac left 0 */
	CHECK(modify(qp, in, sizeof(in), out, sizeof(out)) == EREMOTEIO);
	CHECK(status_of(out) == 0x3 && synd_of(out) == 0x4d4d0047); /* no address path */
	CHECK(destroy(cq) == EBUSY); /* the QP still uses it */
	CHECK(destroy(qp) == 0 && destroy(cq) == 0);
	CHECK(umem_dereg(um) == 0);
	free_uar(uar);
	CHECK(dealloc_pd(pd) == 0 && close(ctx) == 0);
	free_list(devs);
	free(mem);
	unsetenv("MARROW_MLX5MODEL");
	printf("  decoder: wrong-state transitions, LAG without affinity, RoCE path without a MAC refused\n");
}

int main(void)
{
#if !defined(MARROW_VERBS_SO) || !defined(MARROW_MLX5MODEL_SO)
	printf("verbs_test_mlx5model_devx: SKIP (libmarrow_verbs.so or the mlx5 model was not built)\n");
	return 77;
#else
	void *h, *mh;

	setenv("MARROW_RDMA_CORE", "model", 1);
	setenv("MARROW_MLX5MODEL_LIB", MARROW_MLX5MODEL_SO, 1);
	h = dlopen(MARROW_VERBS_SO, RTLD_NOW | RTLD_LOCAL);
	mh = dlopen(MARROW_MLX5MODEL_SO, RTLD_NOW | RTLD_LOCAL); /* the same copy the loader opened */
	CHECK(h != NULL && mh != NULL);
#define SYM(f, n) CHECK((*(void **)&m.f = dlsym(h, n)) != NULL)
	CHECK((*(void **)&last_error = dlsym(h, "marrow_verbs_last_error")) != NULL);
	CHECK((*(void **)&model_why = dlsym(mh, "marrow_mlx5model_devx_why")) != NULL);
	CHECK((*(void **)&m.general = dlsym(mh, "mlx5dv_devx_general_cmd")) != NULL);
	SYM(dev_open, "marrow_mlx5_device_open");
	SYM(dev_close, "marrow_mlx5_device_close");
	SYM(devx_check, "marrow_mlx5_devx_check");
	SYM(mr_reg, "marrow_mlx5_mr_reg");
	SYM(mr_dereg, "marrow_mlx5_mr_dereg");
	SYM(open, "marrow_mlx5_gpu_qp_open");
	SYM(local_info, "marrow_mlx5_gpu_qp_local_info");
	SYM(connect, "marrow_mlx5_gpu_qp_connect");
	SYM(reset, "marrow_mlx5_gpu_qp_reset");
	SYM(indexes, "marrow_mlx5_gpu_qp_indexes");
	SYM(destroy, "marrow_mlx5_gpu_qp_destroy");

	decoder(mh);
	transitions(mh);
	run("");
	run("ts=default");          /* firmware without free-running timestamps: Marrow asks DEFAULT */
	run("link=roce,lag=1");     /* bonded RoCE: LAG affinity, MAC, GID, hop limit all present */
	refusal();
	printf("verbs_test_mlx5model_devx: OK\n");
	return 0;
#endif
}
