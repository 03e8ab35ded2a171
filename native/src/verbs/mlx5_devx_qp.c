/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * GPU-resident mlx5 CQ + RC QP through DevX (mlx5_devx.h;
 * docs/design/mlx5-queue-formats.md §7). No CUDA call here: GPU memory
 * arrives as device pointers / dma-buf fds and is copied through the
 * caller's callbacks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/marrow_common.h"
#include "marrow/marrow_abi.h"
#include "mlx5_devx.h"

#define CQE64 64
#define CQE_OP_OWN_INVALID 0xf0 /* opcode 0xf (invalid), owner 0 */

const char *devx_fns_missing(const struct devx_fns *f)
{
#define NEED(field, name) if (f->field == NULL) return name
	NEED(open_device, "mlx5dv_open_device");
	NEED(umem_reg, "mlx5dv_devx_umem_reg");
	NEED(umem_dereg, "mlx5dv_devx_umem_dereg");
	NEED(alloc_uar, "mlx5dv_devx_alloc_uar");
	NEED(free_uar, "mlx5dv_devx_free_uar");
	NEED(obj_create, "mlx5dv_devx_obj_create");
	NEED(obj_modify, "mlx5dv_devx_obj_modify");
	NEED(obj_destroy, "mlx5dv_devx_obj_destroy");
	NEED(query_eqn, "mlx5dv_devx_query_eqn");
	NEED(init_obj, "mlx5dv_init_obj");
#undef NEED
	return "";
}

void devx_cmd_create_cq(const struct devx_qp *q, uint8_t in[PRM_CREATE_CQ_IN_BYTES])
{
	struct prm_cq_args a = {
		.log_cqe_cnt = q->spec.log_cqe_cnt,
		.uar_page = q->uar->page_id,
		.eqn = q->eqn,
		.cq_umem_id = q->cq_umem->umem_id,
		.cq_umem_offset = 0,
		.dbr_umem_id = q->dbr_umem->umem_id,
		.dbr_offset = DEVX_CQ_DBR_OFFSET,
		.collapsed = 0,      /* the pollers walk the ring and advance the DBR */
		.overrun_ignore = 0,
	};

	prm_create_cq(in, &a);
}

void devx_cmd_create_qp(const struct devx_qp *q, uint8_t in[PRM_CREATE_QP_IN_BYTES])
{
	struct prm_qp_args a = {
		.pd = q->spec.pdn,
		.log_sq_wqebb_cnt = q->spec.log_sq_wqebb_cnt,
		.uar_page = q->uar->page_id,
		.cqn_snd = q->cqn,
		.cqn_rcv = q->cqn,   /* no RQ (zero-size), but the context names a CQ */
		.user_index = 0,
		.wq_umem_id = q->sq_umem->umem_id,
		.wq_umem_offset = 0,
		.dbr_umem_id = q->dbr_umem->umem_id,
		.dbr_offset = DEVX_QP_DBR_OFFSET,
		.ts_format = q->spec.caps.ts_format,
	};

	prm_create_qp(in, &a);
}

void devx_cmd_rst2init(const struct devx_qp *q, uint32_t port, uint32_t access,
		       uint8_t in[PRM_MODIFY_QP_IN_BYTES])
{
	struct prm_init_args a = {
		.qpn = q->qpn,
		.port = port,
		.rre = access & IBV_ACCESS_REMOTE_READ,
		.rwe = access & IBV_ACCESS_REMOTE_WRITE,
		.rae = access & IBV_ACCESS_REMOTE_ATOMIC,
		/* The kernel picks the LAG port round-robin per context; ours
		 * spreads QPs by number, and a recovered QP keeps its port. */
		.lag_tx_port = q->spec.caps.lag_ports > 1 ? 1 + q->qpn % q->spec.caps.lag_ports : 0,
	};

	prm_rst2init(in, &a);
}

uint32_t devx_pick_ts_format(uint32_t ts_cap)
{
	return ts_cap == PRM_TS_CAP_FREE_RUNNING || ts_cap == PRM_TS_CAP_FREE_RUNNING_AND_REAL_TIME ?
	       PRM_TS_FORMAT_FREE_RUNNING : PRM_TS_FORMAT_DEFAULT;
}

/* 2^log of a 6-bit capability, kept within what the 8-bit verbs depths hold. */
static uint32_t pow2_cap(uint32_t log)
{
	return 1u << (log < 8 ? log : 7);
}

void devx_caps_parse(const uint8_t *gen, const uint8_t *roce, uint32_t lag_state, struct devx_caps *c)
{
	const uint32_t b = PRM_HCA_CAP_OUT;
	uint32_t lag_ports = prm_get32(gen, b + PRM_CAP_NUM_LAG_PORTS);
	uint32_t ts_cap = roce != NULL ? prm_get32(roce, b + PRM_ROCE_CAP_QP_TS_FORMAT) :
			  prm_get32(gen, b + PRM_CAP_SQ_TS_FORMAT);

	memset(c, 0, sizeof(*c));
	c->ts_format = devx_pick_ts_format(ts_cap);
	c->max_rd_atomic = pow2_cap(prm_get32(gen, b + PRM_CAP_LOG_MAX_RA_REQ_QP));
	c->max_dest_rd_atomic = pow2_cap(prm_get32(gen, b + PRM_CAP_LOG_MAX_RA_RES_QP));
	if (lag_ports > 1 && (prm_get32(gen, b + PRM_CAP_LAG_TX_PORT_AFFINITY) || lag_state != 0))
		c->lag_ports = lag_ports;
}

void devx_cq_image(uint8_t *ring, uint32_t cqe_cnt)
{
	memset(ring, 0, (size_t)cqe_cnt * CQE64);
	for (uint32_t i = 0; i < cqe_cnt; i++)
		ring[(size_t)i * CQE64 + CQE64 - 1] = CQE_OP_OWN_INVALID;
}

static int buf_check(const char *name, const struct devx_gpu_buf *b, size_t need)
{
	if (b->addr == NULL || ((uintptr_t)b->addr % DEVX_PAGE) != 0)
		return marrow_fail(MARROW_EINVAL, "devx: %s buffer %p is NULL or not %d-byte aligned", name,
				   b->addr, DEVX_PAGE);
	if (b->len < need)
		return marrow_fail(MARROW_EINVAL, "devx: %s buffer holds %zu bytes, needs %zu", name, b->len, need);
	if (b->dmabuf_fd >= 0 && (b->dmabuf_offset % DEVX_PAGE) != 0)
		return marrow_fail(MARROW_EINVAL, "devx: %s dma-buf offset %llu not %d-byte aligned", name,
				   (unsigned long long)b->dmabuf_offset, DEVX_PAGE);
	return MARROW_OK;
}

int devx_spec_check(const struct devx_qp_spec *s)
{
	int rc;

	if (s->ctx == NULL)
		return marrow_fail(MARROW_EINVAL, "devx: no device context");
	if (s->log_sq_wqebb_cnt < 1 || s->log_sq_wqebb_cnt > 15 || s->log_cqe_cnt < 1 || s->log_cqe_cnt > 22)
		return marrow_fail(MARROW_EINVAL, "devx: log_sq_wqebb_cnt %u outside 1..15 or log_cqe_cnt %u "
				   "outside 1..22", s->log_sq_wqebb_cnt, s->log_cqe_cnt);
	if (s->copy.to_gpu == NULL || s->copy.from_gpu == NULL)
		return marrow_fail(MARROW_EINVAL, "devx: the GPU copy callbacks are missing");
	rc = buf_check("SQ", &s->sq, (size_t)MX_WQEBB_SIZE << s->log_sq_wqebb_cnt);
	if (rc == MARROW_OK)
		rc = buf_check("CQ", &s->cq, (size_t)CQE64 << s->log_cqe_cnt);
	if (rc == MARROW_OK)
		rc = buf_check("DBR", &s->dbr, DEVX_DBR_BYTES);
	return rc;
}

/* dma-buf where the caller has one and libmlx5 can take it; else the
 * device pointer itself, which needs the GPU vendor's peer-memory client. */
static int umem_reg(struct devx_qp *q, const char *name, const struct devx_gpu_buf *b,
		    struct mlx5dv_devx_umem **out)
{
	const struct devx_fns *f = q->f;
	int err;

	errno = 0;
	if (b->dmabuf_fd >= 0 && f->umem_reg_ex != NULL) {
		struct mlx5dv_devx_umem_in in;

		memset(&in, 0, sizeof(in));
		in.addr = (void *)(uintptr_t)b->dmabuf_offset; /* with a dma-buf: offset into it */
		in.size = b->len;
		in.access = IBV_ACCESS_LOCAL_WRITE;
		in.pgsz_bitmap = DEVX_PAGE; /* the contexts say log_page_size 0: 4 KiB */
		in.comp_mask = MLX5DV_UMEM_MASK_DMABUF;
		in.dmabuf_fd = b->dmabuf_fd;
		*out = f->umem_reg_ex(q->spec.ctx, &in);
	} else {
		if (b->dmabuf_fd >= 0 && strstr(q->note, "umem_reg_ex") == NULL)
			snprintf(q->note + strlen(q->note), sizeof(q->note) - strlen(q->note), "%slibmlx5 lacks "
				 "mlx5dv_devx_umem_reg_ex: umems from device pointers (needs the peer-memory client)",
				 q->note[0] ? "; " : "");
		*out = f->umem_reg(q->spec.ctx, b->addr, b->len, IBV_ACCESS_LOCAL_WRITE);
	}
	if (*out != NULL)
		return MARROW_OK;
	err = errno ? errno : EIO;
	return marrow_fail(MARROW_EIO, "devx: umem registration of the %s buffer (%p, %zu bytes, %s) failed: "
			   "errno %d (%s)", name, b->addr, b->len, b->dmabuf_fd >= 0 && f->umem_reg_ex ? "dma-buf" :
			   "device pointer", err, strerror(err));
}

/* A command's result: the call's errno and the PRM status/syndrome. */
static int cmd_fail(const char *what, int err, const uint8_t *out)
{
	return marrow_fail(MARROW_EIO, "devx: %s failed: errno %d (%s), PRM status 0x%x syndrome 0x%08x", what,
			   err, strerror(err), prm_get32(out, PRM_OUT_STATUS), prm_get32(out, PRM_OUT_SYNDROME));
}

static struct mlx5dv_devx_obj *obj_create(struct devx_qp *q, const char *what, const void *in, size_t inlen,
					  uint32_t *id, int *rc)
{
	uint8_t out[PRM_OUT_BYTES];
	struct mlx5dv_devx_obj *o;

	memset(out, 0, sizeof(out));
	errno = 0;
	o = q->f->obj_create(q->spec.ctx, in, inlen, out, sizeof(out));
	if (o == NULL || prm_get32(out, PRM_OUT_STATUS) != 0) {
		int err = errno ? errno : EIO;

		if (o != NULL)
			q->f->obj_destroy(o);
		*rc = cmd_fail(what, err, out);
		return NULL;
	}
	*id = prm_get32(out, PRM_OUT_OBJ_ID);
	return o;
}

static int general(const struct devx_fns *f, struct ibv_context *ctx, const char *what, const uint8_t *in,
		   uint8_t *out, size_t outlen)
{
	int err;

	memset(out, 0, outlen);
	errno = 0;
	err = f->general_cmd(ctx, in, PRM_QUERY_IN_BYTES, out, outlen);
	if (err || prm_get32(out, PRM_OUT_STATUS) != 0)
		return cmd_fail(what, err ? err : (errno ? errno : EIO), out);
	return MARROW_OK;
}

int devx_caps_query(const struct devx_fns *f, struct ibv_context *ctx, int eth_port, struct devx_caps *c)
{
	uint8_t gen[PRM_QUERY_HCA_CAP_OUT_BYTES], roce[PRM_QUERY_HCA_CAP_OUT_BYTES]; /* 8 KiB of stack: a control call */
	uint8_t in[PRM_QUERY_IN_BYTES], lag[PRM_QUERY_LAG_OUT_BYTES];
	uint32_t lag_state = 0;
	int have_roce = 0, rc;

	memset(c, 0, sizeof(*c));
	if (f->general_cmd == NULL)
		return marrow_fail(MARROW_ENOSYS, "devx: libmlx5 lacks mlx5dv_devx_general_cmd (no QUERY_HCA_CAP)");
	prm_query_hca_cap(in, PRM_HCA_CAP_GENERAL);
	rc = general(f, ctx, "QUERY_HCA_CAP(general)", in, gen, sizeof(gen));
	if (rc)
		return rc;
	if (eth_port && prm_get32(gen, PRM_HCA_CAP_OUT + PRM_CAP_ROCE)) {
		prm_query_hca_cap(in, PRM_HCA_CAP_ROCE);
		have_roce = general(f, ctx, "QUERY_HCA_CAP(RoCE)", in, roce, sizeof(roce)) == MARROW_OK;
	}
	/* Bonded ports without the static affinity capability: ask the LAG
	 * state (as rdma-core's mlx5dv_query_qp_lag_port does); a refusal
	 * counts as not bonded. */
	if (prm_get32(gen, PRM_HCA_CAP_OUT + PRM_CAP_NUM_LAG_PORTS) > 1 &&
	    !prm_get32(gen, PRM_HCA_CAP_OUT + PRM_CAP_LAG_TX_PORT_AFFINITY)) {
		prm_query_lag(in);
		if (general(f, ctx, "QUERY_LAG", in, lag, sizeof(lag)) == MARROW_OK)
			lag_state = prm_get32(lag, PRM_QUERY_LAG_STATE);
	}
	devx_caps_parse(gen, have_roce ? roce : NULL, lag_state, c);
	marrow_clear_error();
	return MARROW_OK;
}

/* Releases whatever q holds, newest first; the first failure is returned. */
static int release(struct devx_qp *q)
{
	const struct devx_fns *f = q->f;
	int rc = MARROW_OK, err;

	if (q->qp && (err = f->obj_destroy(q->qp)) != 0 && rc == MARROW_OK)
		rc = marrow_fail(MARROW_EIO, "devx: destroying QP 0x%x failed: errno %d", q->qpn, err);
	if (q->cq && (err = f->obj_destroy(q->cq)) != 0 && rc == MARROW_OK)
		rc = marrow_fail(MARROW_EIO, "devx: destroying CQ 0x%x failed: errno %d", q->cqn, err);
	if (q->dbr_umem && (err = f->umem_dereg(q->dbr_umem)) != 0 && rc == MARROW_OK)
		rc = marrow_fail(MARROW_EIO, "devx: DBR umem deregistration failed: errno %d", err);
	if (q->cq_umem && (err = f->umem_dereg(q->cq_umem)) != 0 && rc == MARROW_OK)
		rc = marrow_fail(MARROW_EIO, "devx: CQ umem deregistration failed: errno %d", err);
	if (q->sq_umem && (err = f->umem_dereg(q->sq_umem)) != 0 && rc == MARROW_OK)
		rc = marrow_fail(MARROW_EIO, "devx: SQ umem deregistration failed: errno %d", err);
	if (q->uar) /* allocated first: released last */
		f->free_uar(q->uar);
	q->qp = NULL;
	q->cq = NULL;
	q->uar = NULL;
	q->dbr_umem = q->cq_umem = q->sq_umem = NULL;
	return rc;
}

static int alloc_uar(struct devx_qp *q)
{
	int err;

	errno = 0;
	q->uar = q->f->alloc_uar(q->spec.ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (q->uar != NULL)
		return MARROW_OK;
	err = errno ? errno : EIO;
	q->uar = q->f->alloc_uar(q->spec.ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	if (q->uar == NULL)
		return marrow_fail(MARROW_EIO, "devx: mlx5dv_devx_alloc_uar failed for NC (errno %d, %s) and BF",
				   err, strerror(err));
	snprintf(q->note + strlen(q->note), sizeof(q->note) - strlen(q->note), "%sUAR is BlueFlame "
		 "(write-combining): the non-cached kind was refused, errno %d", q->note[0] ? "; " : "", err);
	return MARROW_OK;
}

static int create_steps(struct devx_qp *q)
{
	uint8_t cmd[PRM_CREATE_QP_IN_BYTES > PRM_CREATE_CQ_IN_BYTES ? PRM_CREATE_QP_IN_BYTES : PRM_CREATE_CQ_IN_BYTES];
	uint8_t dbr[DEVX_DBR_BYTES];
	uint8_t ring[CQE64 * 64];
	uint32_t cqe_cnt = 1u << q->spec.log_cqe_cnt;
	int rc, err;

	/* The GPU memory's first image: zero DBRs and an all-invalid CQ ring. */
	memset(dbr, 0, sizeof(dbr));
	if (q->spec.copy.to_gpu(q->spec.copy.ctx, q->spec.dbr.addr, dbr, sizeof(dbr)) != 0)
		return marrow_fail(MARROW_EIO, "devx: initialising the doorbell records in GPU memory failed");
	devx_cq_image(ring, 64);
	for (uint32_t i = 0; i < cqe_cnt; i += 64) {
		uint32_t n = cqe_cnt - i < 64 ? cqe_cnt - i : 64;

		if (q->spec.copy.to_gpu(q->spec.copy.ctx, (uint8_t *)q->spec.cq.addr + (size_t)i * CQE64, ring,
					(size_t)n * CQE64) != 0)
			return marrow_fail(MARROW_EIO, "devx: initialising the CQ ring in GPU memory failed");
	}
	/* The UAR first, so that release (newest first) deregisters the umems
	 * before it frees the UAR, and the caller frees the memory after both. */
	if ((rc = alloc_uar(q)) != 0 || (rc = umem_reg(q, "SQ", &q->spec.sq, &q->sq_umem)) != 0 ||
	    (rc = umem_reg(q, "CQ", &q->spec.cq, &q->cq_umem)) != 0 ||
	    (rc = umem_reg(q, "DBR", &q->spec.dbr, &q->dbr_umem)) != 0)
		return rc;
	err = q->f->query_eqn(q->spec.ctx, 0, &q->eqn);
	if (err)
		return marrow_fail(MARROW_EIO, "devx: mlx5dv_devx_query_eqn(vector 0) failed: %d", err);
	devx_cmd_create_cq(q, cmd);
	q->cq = obj_create(q, "CREATE_CQ", cmd, PRM_CREATE_CQ_IN_BYTES, &q->cqn, &rc);
	if (q->cq == NULL)
		return rc;
	devx_cmd_create_qp(q, cmd);
	q->qp = obj_create(q, "CREATE_QP", cmd, PRM_CREATE_QP_IN_BYTES, &q->qpn, &rc);
	if (q->qp == NULL)
		return rc;
	q->state = IBV_QPS_RESET;
	return MARROW_OK;
}

int devx_qp_create(const struct devx_fns *f, const struct devx_qp_spec *spec, struct devx_qp *q)
{
	const char *missing;
	int rc;

	memset(q, 0, sizeof(*q));
	if (f == NULL || spec == NULL)
		return marrow_fail(MARROW_EINVAL, "devx: NULL argument");
	missing = devx_fns_missing(f);
	if (missing[0] != '\0')
		return marrow_fail(MARROW_ENODEV, "devx unavailable: libmlx5 lacks %s", missing);
	rc = devx_spec_check(spec);
	if (rc)
		return rc;
	q->f = f;
	q->spec = *spec;
	rc = create_steps(q);
	if (rc) {
		char why[400];

		snprintf(why, sizeof(why), "%s", marrow_last_error());
		release(q); /* its own failures would hide the first one */
		memset(q, 0, sizeof(*q));
		return marrow_fail(rc, "%s", why);
	}
	return MARROW_OK;
}

static size_t page_up(size_t n)
{
	return (n + DEVX_PAGE - 1) & ~(size_t)(DEVX_PAGE - 1);
}

void devx_mem_layout(uint32_t log_sq_wqebb_cnt, uint32_t log_cqe_cnt, struct devx_mem_layout *l)
{
	l->sq_off = 0;
	l->cq_off = page_up((size_t)MX_WQEBB_SIZE << log_sq_wqebb_cnt);
	l->dbr_off = l->cq_off + page_up((size_t)CQE64 << log_cqe_cnt);
	l->total = l->dbr_off + DEVX_PAGE; /* the DBRs get a page of their own */
}

static struct devx_gpu_buf buf_in(uint8_t *start, size_t off, size_t len, int fd, uint64_t fd_off)
{
	struct devx_gpu_buf b = { start + off, len, fd, fd >= 0 ? fd_off + off : 0 };

	return b;
}

int devx_qp_open(const struct devx_fns *f, const struct marrow_mlx5_gpu_mem_ops *ops, struct ibv_context *ctx,
		 uint32_t pdn, uint32_t log_sq_wqebb_cnt, uint32_t log_cqe_cnt, const struct devx_caps *caps,
		 struct devx_qp *q)
{
	struct devx_mem_layout l;
	struct devx_qp_spec spec;
	const char *missing;
	char dmabuf_why[96] = "";
	uint64_t fd_off = 0;
	uint8_t *start;
	void *base = NULL;
	int32_t fd = -1;
	int rc, r;

	memset(q, 0, sizeof(*q));
	if (f == NULL || ops == NULL || ops->alloc == NULL || ops->free == NULL)
		return marrow_fail(MARROW_EINVAL, "devx: NULL argument or memory operations without alloc/free");
	if (ops->size < sizeof(*ops) || ops->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "devx: memory operations size %u < %zu or comp_mask 0x%x", ops->size,
				   sizeof(*ops), ops->comp_mask);
	missing = devx_fns_missing(f); /* before any GPU memory is taken */
	if (missing[0] != '\0')
		return marrow_fail(MARROW_ENODEV, "devx unavailable: libmlx5 lacks %s", missing);
	if (log_sq_wqebb_cnt < 1 || log_sq_wqebb_cnt > 15 || log_cqe_cnt < 1 || log_cqe_cnt > 22)
		return marrow_fail(MARROW_EINVAL, "devx: log_sq_wqebb_cnt %u outside 1..15 or log_cqe_cnt %u "
				   "outside 1..22", log_sq_wqebb_cnt, log_cqe_cnt);
	devx_mem_layout(log_sq_wqebb_cnt, log_cqe_cnt, &l);
	if ((r = ops->alloc(ops->ctx, l.total + DEVX_PAGE, &base)) != 0 || base == NULL) {
		char why[256];

		snprintf(why, sizeof(why), "%s", r != 0 ? marrow_last_error() : "no pointer returned");
		return marrow_fail(r < 0 ? r : MARROW_ENOMEM, "devx: allocating %zu bytes of GPU memory for the "
				   "queues failed: %s", l.total + DEVX_PAGE, why);
	}
	start = (uint8_t *)(((uintptr_t)base + DEVX_PAGE - 1) & ~(uintptr_t)(DEVX_PAGE - 1));
	if (ops->dmabuf_fd == NULL)
		snprintf(dmabuf_why, sizeof(dmabuf_why), "no dma-buf export");
	else if (ops->dmabuf_fd(ops->ctx, start, l.total, &fd, &fd_off) != 0 || fd < 0)
		snprintf(dmabuf_why, sizeof(dmabuf_why), "dma-buf export refused (%.70s)", marrow_last_error());
	if (fd < 0)
		fd = -1;
	memset(&spec, 0, sizeof(spec));
	spec.ctx = ctx;
	if (caps != NULL)
		spec.caps = *caps;
	spec.pdn = pdn;
	spec.log_sq_wqebb_cnt = log_sq_wqebb_cnt;
	spec.log_cqe_cnt = log_cqe_cnt;
	spec.sq = buf_in(start, l.sq_off, l.cq_off - l.sq_off, fd, fd_off);
	spec.cq = buf_in(start, l.cq_off, l.dbr_off - l.cq_off, fd, fd_off);
	spec.dbr = buf_in(start, l.dbr_off, DEVX_PAGE, fd, fd_off);
	spec.copy.to_gpu = ops->to_gpu;
	spec.copy.from_gpu = ops->from_gpu;
	spec.copy.ctx = ops->ctx;
	rc = devx_qp_create(f, &spec, q);
	if (fd >= 0)
		close(fd); /* the umems hold the memory now (or nothing does) */
	if (rc != MARROW_OK) {
		char why[400];

		snprintf(why, sizeof(why), "%s", marrow_last_error());
		if (ops->free(ops->ctx, base) != 0)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " (and freeing the GPU memory failed)");
		return marrow_fail(rc, "%s", why);
	}
	q->mem = *ops;
	q->mem_base = base;
	if (fd < 0)
		snprintf(q->note + strlen(q->note), sizeof(q->note) - strlen(q->note), "%s%s: umems from device "
			 "pointers (needs the peer-memory client)", q->note[0] ? "; " : "", dmabuf_why);
	return MARROW_OK;
}

int devx_mac_from_link_local_gid(const uint8_t gid[16], uint8_t mac[6])
{
	static const uint8_t prefix[8] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0};

	if (memcmp(gid, prefix, 8) != 0 || gid[11] != 0xff || gid[12] != 0xfe)
		return -1;
	mac[0] = gid[8] ^ 0x02; /* the EUI-64 flips the universal/local bit */
	mac[1] = gid[9];
	mac[2] = gid[10];
	mac[3] = gid[13];
	mac[4] = gid[14];
	mac[5] = gid[15];
	return 0;
}

static int modify(struct devx_qp *q, const char *what, const uint8_t *in, size_t inlen, int next)
{
	uint8_t out[PRM_OUT_BYTES];
	int err;

	memset(out, 0, sizeof(out));
	errno = 0;
	err = q->f->obj_modify(q->qp, in, inlen, out, sizeof(out));
	if (err || prm_get32(out, PRM_OUT_STATUS) != 0) {
		char step[64];

		snprintf(step, sizeof(step), "%s on QP 0x%x", what, q->qpn);
		return cmd_fail(step, err ? err : (errno ? errno : EIO), out);
	}
	q->state = next;
	return MARROW_OK;
}

/* 2RST_QP alone: the QP context goes back to RESET. */
static int to_reset(struct devx_qp *q)
{
	uint8_t in[PRM_2RST_QP_IN_BYTES];

	prm_2rst(in, q->qpn);
	return modify(q, "2RST_QP", in, sizeof(in), IBV_QPS_RESET);
}

int devx_qp_connect(struct devx_qp *q, uint32_t port, uint32_t access,
		    const struct prm_rtr_args *a, const struct prm_rts_args *r)
{
	uint8_t in[PRM_MODIFY_QP_IN_BYTES];
	struct prm_rtr_args rtr = *a;
	struct prm_rts_args rts = *r;
	int rc;

	if (q->qp == NULL || q->state != IBV_QPS_RESET)
		return marrow_fail(MARROW_EINVAL, "devx: connect needs a QP in RESET (state %d)", q->state);
	rtr.qpn = q->qpn;
	rts.qpn = q->qpn;
	q->conn.valid = 1;
	q->conn.port = port;
	q->conn.access = access;
	q->conn.rtr = rtr;
	q->conn.rts = rts;
	devx_cmd_rst2init(q, port, access, in);
	rc = modify(q, "RST2INIT_QP", in, sizeof(in), IBV_QPS_INIT);
	if (rc == MARROW_OK) {
		prm_init2rtr(in, &rtr);
		rc = modify(q, "INIT2RTR_QP", in, sizeof(in), IBV_QPS_RTR);
	}
	if (rc == MARROW_OK) {
		prm_rtr2rts(in, &rts);
		rc = modify(q, "RTR2RTS_QP", in, sizeof(in), IBV_QPS_RTS);
	}
	if (rc != MARROW_OK && q->state != IBV_QPS_RESET) {
		char why[400];

		/* Back to RESET so that connect may run again; the first error stands. */
		snprintf(why, sizeof(why), "%s", marrow_last_error());
		to_reset(q);
		rc = marrow_fail(rc, "%s", why);
	}
	return rc;
}

/*
 * The QP's last CQEs (the error CQE and the flushed WQEs' ones) that no
 * poller consumed: walked from the CQ doorbell record's consumer index
 * while a slot holds a valid CQE of the current lap (§4.3), and the index
 * is advanced past them, so that the next session's poller, which resumes
 * from that record, starts at the first CQE of the new connection.
 */
static int drain_cq(struct devx_qp *q)
{
	const struct devx_gpu_copy *c = &q->spec.copy;
	uint32_t n = 1u << q->spec.log_cqe_cnt, w, ci, k = 0;
	uint8_t *rec = (uint8_t *)q->spec.dbr.addr + DEVX_CQ_DBR_OFFSET;
	uint8_t op_own;

	if (c->from_gpu(c->ctx, &w, rec, 4) != 0)
		return marrow_fail(MARROW_EIO, "devx: reading the CQ doorbell record of CQ 0x%x failed", q->cqn);
	ci = mx_be32toh(w) & 0xffffffu;
	for (; k < n; k++, ci++) {
		const uint8_t *slot = (const uint8_t *)q->spec.cq.addr + (size_t)(ci & (n - 1)) * CQE64;

		if (c->from_gpu(c->ctx, &op_own, slot + CQE64 - 1, 1) != 0)
			return marrow_fail(MARROW_EIO, "devx: reading CQE %u of CQ 0x%x failed", ci, q->cqn);
		if ((op_own >> 4) == (CQE_OP_OWN_INVALID >> 4) ||
		    (op_own & 1u) != ((ci >> q->spec.log_cqe_cnt) & 1u))
			break;
	}
	q->drained = k;
	if (k == 0)
		return MARROW_OK;
	w = mx_htobe32(ci & 0xffffffu);
	if (c->to_gpu(c->ctx, rec, &w, 4) != 0)
		return marrow_fail(MARROW_EIO, "devx: advancing the CQ doorbell record of CQ 0x%x failed", q->cqn);
	return MARROW_OK;
}

int devx_qp_reset(struct devx_qp *q)
{
	uint8_t zero[8] = {0};
	int rc;

	if (q == NULL || q->f == NULL || q->qp == NULL)
		return marrow_fail(MARROW_EINVAL, "devx: reset of a QP that holds nothing");
	rc = to_reset(q);
	if (rc)
		return rc;
	/* RESET restarts the SQ at WQE counter 0; a fresh QP's record is 0. */
	if (q->spec.copy.to_gpu(q->spec.copy.ctx, (uint8_t *)q->spec.dbr.addr + DEVX_QP_DBR_OFFSET, zero,
				sizeof(zero)) != 0)
		return marrow_fail(MARROW_EIO, "devx: QP 0x%x is in RESET but clearing its doorbell record in GPU "
				   "memory failed", q->qpn);
	return drain_cq(q);
}

int devx_qp_recover(struct devx_qp *q)
{
	int rc;

	if (q == NULL || !q->conn.valid)
		return marrow_fail(MARROW_EINVAL, "devx: recover of a QP that was never connected");
	rc = devx_qp_reset(q);
	if (rc == MARROW_OK)
		rc = devx_qp_connect(q, q->conn.port, q->conn.access, &q->conn.rtr, &q->conn.rts);
	return rc;
}

int devx_qp_destroy(struct devx_qp *q)
{
	int rc;

	if (q == NULL || q->f == NULL)
		return marrow_fail(MARROW_EINVAL, "devx: destroy of a QP that holds nothing");
	rc = release(q);
	if (q->mem_base != NULL) { /* after every DevX object that pinned it */
		if (q->mem.free(q->mem.ctx, q->mem_base) != 0 && rc == MARROW_OK)
			rc = marrow_fail(MARROW_EIO, "devx: freeing the queues' GPU memory failed: %s",
					 marrow_last_error());
		q->mem_base = NULL;
	}
	q->f = NULL;
	return rc;
}

int devx_qp_read_indexes(const struct devx_qp *q, uint32_t *sq_pi, uint32_t *cq_ci)
{
	uint32_t w[DEVX_DBR_BYTES / 4];

	if (q->spec.copy.from_gpu(q->spec.copy.ctx, w, q->spec.dbr.addr, sizeof(w)) != 0)
		return marrow_fail(MARROW_EIO, "devx: reading the doorbell records from GPU memory failed");
	*sq_pi = mx_be32toh(w[DEVX_QP_DBR_OFFSET / 4 + 1]) & 0xffffu;
	*cq_ci = mx_be32toh(w[DEVX_CQ_DBR_OFFSET / 4]) & 0xffffffu;
	return MARROW_OK;
}
