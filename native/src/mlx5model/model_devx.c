/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * DevX on the mlx5 model: umem registration, UAR allocation, the EQ query,
 * general commands (QUERY_HCA_CAP, QUERY_LAG) and CQ/QP objects created and
 * moved through their states by PRM command boxes. The boxes are decoded
 * here, from the field offsets of mlx5_ifc.h (the table below), never with
 * Marrow's own builders, and answered as firmware answers: status and
 * syndrome in the out box, with errno EREMOTEIO from the call.
 * docs/design/mlx5-model.md §5.
 *
 * The queues are the client's umem memory: a DevX CQ or QP is a software
 * NIC CQ/QP whose ring, doorbell record and doorbell page are pointed at
 * the client's buffers and at the UAR page handed out by
 * mlx5dv_devx_alloc_uar (and pointed back before the software NIC frees
 * its own). Host memory only: a GPU umem needs the device engine.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/marrow_common.h"
#include "softnic/emu_internal.h"
#include "model_internal.h"

#define MODEL_EXPORT __attribute__((visibility("default")))

/* ---- PRM layout facts (bit offset, width) from mlx5_ifc.h ---------------- */

struct fld {
	uint32_t off, w;
};

#define F(o, w) ((struct fld){ (o), (w) })
/* command header and out box */
#define IN_OPCODE F(0x00, 16)
#define IN_OP_MOD F(0x30, 16)
#define IN_QPN F(0x48, 24)          /* modify / query QP in */
#define OUT_STATUS F(0x00, 8)
#define OUT_SYNDROME F(0x20, 32)
#define OUT_ID F(0x48, 24)          /* cqn / qpn of create_*_out */
/* create_cq_in: cq_context (cqc) at 0x80 */
#define CQ_DBR_UMEM_VALID F(0x80 + 0x06, 1)
#define CQ_CQE_SZ F(0x80 + 0x08, 3)
#define CQ_CC F(0x80 + 0x0b, 1)
#define CQ_OI F(0x80 + 0x0f, 1)
#define CQ_DBR_UMEM_ID F(0x80 + 0x20, 32)
#define CQ_LOG_SIZE F(0x80 + 0x63, 5)
#define CQ_UAR_PAGE F(0x80 + 0x68, 24)
#define CQ_EQN F(0x80 + 0xa0, 32)   /* c_eqn_or_apu_element; the old c_eqn is its low 8 bits */
#define CQ_LOG_PAGE_SIZE F(0x80 + 0xc3, 5)
#define CQ_DBR_ADDR F(0x80 + 0x1c0, 64)
#define CQ_UMEM_OFFSET F(0x280, 64)
#define CQ_UMEM_ID F(0x2c0, 32)
#define CQ_UMEM_VALID F(0x2e0, 1)
/* create_qp_in / *2*_qp_in / query_qp_out: qpc at 0xc0 (offsets below are absolute) */
#define QPC_STATE F(0xc0, 4)
#define QPC_LAG_AFFINITY F(0xc4, 4)
#define QPC_ST F(0xc8, 8)
#define QPC_PM_STATE F(0xd3, 2)
#define QPC_PD F(0xe8, 24)
#define QPC_MTU F(0x100, 3)
#define QPC_LOG_RQ_SIZE F(0x109, 4)
#define QPC_NO_SQ F(0x110, 1)
#define QPC_LOG_SQ_SIZE F(0x111, 4)
#define QPC_TS_FORMAT F(0x118, 2)
#define QPC_UAR_PAGE F(0x128, 24)
#define QPC_REMOTE_QPN F(0x168, 24)
#define PAP_PKEY_INDEX F(0x190, 16)
#define PAP_GRH F(0x1a8, 1)
#define PAP_RLID F(0x1b0, 16)
#define PAP_ACK_TIMEOUT F(0x1c0, 5)
#define PAP_SRC_ADDR_INDEX F(0x1c8, 8)
#define PAP_HOP_LIMIT F(0x1d8, 8)
#define PAP_RGID 0x200              /* 128 bits */
#define PAP_ETH_PRIO F(0x2a1, 3)
#define PAP_SL F(0x2a4, 4)
#define PAP_VHCA_PORT F(0x2a8, 8)
#define PAP_RMAC_HI F(0x2b0, 16)
#define PAP_RMAC_LO F(0x2c0, 32)
#define QPC_LOG_SRA_MAX F(0x448, 3)
#define QPC_RETRY_COUNT F(0x44d, 3)
#define QPC_RNR_RETRY F(0x450, 3)
#define QPC_NEXT_SEND_PSN F(0x488, 24)
#define QPC_CQN_SND F(0x4a8, 24)
#define QPC_LOG_RRA_MAX F(0x548, 3)
#define QPC_RRE F(0x550, 1)
#define QPC_RWE F(0x551, 1)
#define QPC_RAE F(0x552, 1)
#define QPC_MIN_RNR_NAK F(0x563, 5)
#define QPC_NEXT_RCV_PSN F(0x568, 24)
#define QPC_CQN_RCV F(0x5a8, 24)
#define QPC_DBR_ADDR F(0x5c0, 64)
#define QPC_RQ_TYPE F(0x625, 3)
#define QPC_DBR_UMEM_VALID F(0x743, 1)
#define QPC_DBR_UMEM_ID F(0x7e0, 32)
#define QP_WQ_UMEM_OFFSET F(0x800, 64)
#define QP_WQ_UMEM_ID F(0x840, 32)
#define QP_WQ_UMEM_VALID F(0x860, 1)
/* query_hca_cap_out: the capability at 0x80; cmd_hca_cap and roce_cap offsets */
#define CAP_BASE 0x80
#define CAP_LOG_MAX_QP_SZ F(CAP_BASE + 0x88, 8)
#define CAP_LOG_MAX_QP F(CAP_BASE + 0x9b, 5)
#define CAP_LOG_MAX_CQ_SZ F(CAP_BASE + 0xc8, 8)
#define CAP_LOG_MAX_CQ F(CAP_BASE + 0xdb, 5)
#define CAP_LOG_MAX_RA_REQ_QP F(CAP_BASE + 0x14a, 6)
#define CAP_LOG_MAX_RA_RES_QP F(CAP_BASE + 0x15a, 6)
#define CAP_PORT_TYPE F(CAP_BASE + 0x1b6, 2)
#define CAP_NUM_PORTS F(CAP_BASE + 0x1b8, 8)
#define CAP_LOG_MAX_MSG F(CAP_BASE + 0x1c3, 5)
#define CAP_CQE_VERSION F(CAP_BASE + 0x1fc, 4)
#define CAP_ROCE F(CAP_BASE + 0x21d, 1)
#define CAP_LAG_TX_PORT_AFFINITY F(CAP_BASE + 0x278, 1)
#define CAP_NUM_LAG_PORTS F(CAP_BASE + 0x27c, 4)
#define CAP_LOG_MAX_PD F(CAP_BASE + 0x32b, 5)
#define CAP_SQ_TS_FORMAT F(CAP_BASE + 0x440, 2)
#define CAP_RQ_TS_FORMAT F(CAP_BASE + 0x442, 2)
#define ROCE_CAP_QP_TS_FORMAT F(CAP_BASE + 0x1e, 2)
#define LAG_STATE F(0x5d, 3)        /* query_lag_out: lagc at 0x40 */

enum {
	OP_QUERY_HCA_CAP = 0x100, OP_CREATE_CQ = 0x400, OP_DESTROY_CQ = 0x401, OP_CREATE_QP = 0x500,
	OP_DESTROY_QP = 0x501, OP_RST2INIT = 0x502, OP_INIT2RTR = 0x503, OP_RTR2RTS = 0x504, OP_RTS2RTS = 0x505,
	OP_2ERR = 0x507, OP_2RST = 0x50a, OP_QUERY_QP = 0x50b, OP_INIT2INIT = 0x50e, OP_QUERY_LAG = 0x842,
	/* command status (PRM) */
	ST_OK = 0x0, ST_BAD_OP = 0x2, ST_BAD_PARAM = 0x3, ST_BAD_RES = 0x5, ST_BAD_RES_STATE = 0x9,
	ST_BAD_QP_STATE = 0x10, ST_BAD_INP_LEN = 0x50, ST_BAD_OUTP_LEN = 0x51,
	/* qpc values */
	QPC_ST_RC = 0x0, TS_FREE_RUNNING = 0x0, TS_DEFAULT = 0x1, TS_REAL_TIME = 0x2,
	TS_CAP_FREE = 0x0, TS_CAP_RT = 0x1, TS_CAP_BOTH = 0x2, RQ_TYPE_ZERO = 0x3,
	HCA_CAP_GENERAL = 0x0, HCA_CAP_ROCE = 0x4,
	MODEL_EQN = 7,
	CMD_MIN_IN = 16, QP_IN_BYTES = 0x880 / 8, CQ_IN_BYTES = 0x880 / 8, CAP_OUT_BYTES = 0x80 / 8 + 0x8000 / 8,
};

/*
 * The model's syndromes: 0x4d4d << 16 | a code naming the check that
 * refused (firmware's syndromes are its own; tests and messages read
 * these). docs/design/mlx5-model.md §5 lists them.
 */
enum {
	SY_OPCODE = 0x01, SY_INLEN = 0x02, SY_OUTLEN = 0x03, SY_NO_CQ = 0x10, SY_NO_QP = 0x11, SY_NO_UMEM = 0x12,
	SY_NO_UAR = 0x13, SY_NO_PD = 0x14, SY_NO_EQ = 0x15, SY_UMEM_RANGE = 0x16, SY_CQ_SIZE = 0x20,
	SY_CQE_SZ = 0x21, SY_CQ_FLAGS = 0x22, SY_QP_ST = 0x30, SY_SQ_SIZE = 0x31, SY_RQ = 0x32, SY_TS_FORMAT = 0x33,
	SY_STATE = 0x40, SY_PORT = 0x41, SY_PKEY = 0x42, SY_MTU = 0x43, SY_REMOTE_QPN = 0x44, SY_RRA = 0x45,
	SY_SRA = 0x46, SY_PATH = 0x47, SY_SGID = 0x48, SY_LAG = 0x49, SY_PRIO = 0x4a, SY_BUSY = 0x4b,
	SY_QPN_MISMATCH = 0x4c, SY_ROUTE = 0x4d,
};

static uint32_t get_bits(const uint8_t *box, struct fld f)
{
	uint32_t dw;

	memcpy(&dw, box + (f.off / 32) * 4, 4);
	dw = be32toh(dw);
	if (f.w == 32)
		return dw;
	return (dw >> (32 - f.off % 32 - f.w)) & ((1u << f.w) - 1);
}

static uint64_t get64(const uint8_t *box, struct fld f)
{
	return (uint64_t)get_bits(box, F(f.off, 32)) << 32 | get_bits(box, F(f.off + 32, 32));
}

static void set_bits(uint8_t *box, struct fld f, uint32_t v)
{
	uint32_t dw, mask, sh;

	memcpy(&dw, box + (f.off / 32) * 4, 4);
	dw = be32toh(dw);
	if (f.w == 32) {
		dw = v;
	} else {
		sh = 32 - f.off % 32 - f.w;
		mask = ((1u << f.w) - 1) << sh;
		dw = (dw & ~mask) | ((v << sh) & mask);
	}
	dw = htobe32(dw);
	memcpy(box + (f.off / 32) * 4, &dw, 4);
}

/* ---- objects -------------------------------------------------------------- */

struct model_umem {
	struct mlx5dv_devx_umem pub;
	struct model_ctx *mc;
	uint8_t *addr;
	size_t size;
	struct model_umem *next;
};

struct model_uar {
	struct mlx5dv_devx_uar pub;
	struct model_ctx *mc;
	uint8_t *page;
	struct model_uar *next;
};

enum { OBJ_CQ = 1, OBJ_QP = 2 };

struct model_obj {
	int kind;
	struct model_ctx *mc;
	uint32_t id;
	struct model_obj *next;
	/* CQ */
	struct marrow_emu_cq *cq;
	struct marrow_cq_view cv;
	uint8_t *cq_own_buf, *cq_cli_buf;
	uint32_t *cq_own_dbrec, *cq_cli_dbrec;
	/* QP */
	struct marrow_emu_qp *qp;
	struct marrow_qp_view qv;
	struct model_obj *scq;
	uint8_t *qp_own_sq;
	const uint32_t *qp_own_dbrec;
	uint8_t *qp_own_uar_page;
	uint32_t state;             /* PRM qpc state */
	uint32_t lag_affinity;
	struct model_pd *pd;
};

/* Per-context DevX registry, under the context's mutex. */
static struct {
	pthread_mutex_t lock;
	struct model_umem *umems;
	struct model_uar *uars;
	struct model_obj *objs;
	uint32_t next_umem, next_uar;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_umem = 1, .next_uar = 16 };

static __thread char g_devx_why[256];

MODEL_EXPORT const char *marrow_mlx5model_devx_why(void)
{
	return g_devx_why;
}

/* Fills the out box with a refusal; returns -1 with errno EREMOTEIO, as
 * the kernel's DevX answers a command firmware refused. */
__attribute__((format(printf, 5, 6)))
static int fail(uint8_t *out, size_t outlen, uint32_t status, uint32_t code, const char *fmt, ...)
{
	va_list ap;

	if (out != NULL && outlen >= CMD_MIN_IN) {
		memset(out, 0, outlen);
		set_bits(out, OUT_STATUS, status);
		set_bits(out, OUT_SYNDROME, 0x4d4d0000u | code);
	}
	va_start(ap, fmt);
	vsnprintf(g_devx_why, sizeof(g_devx_why), fmt, ap);
	va_end(ap);
	errno = EREMOTEIO;
	return -1;
}

static struct model_ctx *devx_ctx(struct ibv_context *c)
{
	struct model_ctx *mc = (struct model_ctx *)c;

	if (!mc->devx) {
		errno = EOPNOTSUPP; /* a context not opened with MLX5DV_CONTEXT_FLAGS_DEVX */
		snprintf(g_devx_why, sizeof(g_devx_why), "context not opened for DevX");
		return NULL;
	}
	return mc;
}

MODEL_EXPORT struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg(struct ibv_context *c, void *addr, size_t size,
							   uint32_t access)
{
	struct model_ctx *mc = devx_ctx(c);
	struct model_umem *u;

	if (mc == NULL)
		return NULL;
	if (addr == NULL || size == 0 || (access & ~(uint32_t)(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
							       IBV_ACCESS_REMOTE_READ))) {
		errno = EINVAL;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	u->mc = mc;
	u->addr = addr;
	u->size = size;
	pthread_mutex_lock(&g.lock);
	u->pub.umem_id = g.next_umem++;
	u->next = g.umems;
	g.umems = u;
	pthread_mutex_unlock(&g.lock);
	return &u->pub;
}

/* dma-buf umems are GPU memory: the model serves host memory only. */
MODEL_EXPORT struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg_ex(struct ibv_context *c, struct mlx5dv_devx_umem_in *in)
{
	if (in != NULL && (in->comp_mask & MLX5DV_UMEM_MASK_DMABUF)) {
		errno = EOPNOTSUPP;
		snprintf(g_devx_why, sizeof(g_devx_why), "dma-buf umem: the mlx5 model serves host memory only");
		return NULL;
	}
	return in ? mlx5dv_devx_umem_reg(c, in->addr, in->size, in->access) : (errno = EINVAL, NULL);
}

MODEL_EXPORT int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *pub)
{
	struct model_umem *u = (struct model_umem *)pub, **p;

	pthread_mutex_lock(&g.lock);
	for (p = &g.umems; *p != NULL; p = &(*p)->next)
		if (*p == u) {
			*p = u->next;
			break;
		}
	pthread_mutex_unlock(&g.lock);
	free(u);
	return 0;
}

MODEL_EXPORT struct mlx5dv_devx_uar *mlx5dv_devx_alloc_uar(struct ibv_context *c, uint32_t flags)
{
	struct model_ctx *mc = devx_ctx(c);
	struct model_uar *u;

	if (mc == NULL)
		return NULL;
	if (flags != MLX5DV_UAR_ALLOC_TYPE_BF && flags != MLX5DV_UAR_ALLOC_TYPE_NC) {
		errno = EINVAL;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL || posix_memalign((void **)&u->page, 4096, 4096) != 0) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	memset(u->page, 0, 4096);
	u->mc = mc;
	u->pub.reg_addr = u->page;   /* the doorbell register: the engine reads this page */
	u->pub.base_addr = u->page;
	pthread_mutex_lock(&g.lock);
	u->pub.page_id = g.next_uar++;
	u->next = g.uars;
	g.uars = u;
	pthread_mutex_unlock(&g.lock);
	return &u->pub;
}

MODEL_EXPORT void mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *pub)
{
	struct model_uar *u = (struct model_uar *)pub, **p;

	pthread_mutex_lock(&g.lock);
	for (p = &g.uars; *p != NULL; p = &(*p)->next)
		if (*p == u) {
			*p = u->next;
			break;
		}
	pthread_mutex_unlock(&g.lock);
	free(u->page);
	free(u);
}

MODEL_EXPORT int mlx5dv_devx_query_eqn(struct ibv_context *c, uint32_t vector, uint32_t *eqn)
{
	if (devx_ctx(c) == NULL)
		return EOPNOTSUPP;
	if (vector != 0)
		return EINVAL; /* one completion vector */
	*eqn = MODEL_EQN;
	return 0;
}

/* ---- lookups (g.lock held) -------------------------------------------------- */

static struct model_umem *umem_find(struct model_ctx *mc, uint32_t id)
{
	for (struct model_umem *u = g.umems; u != NULL; u = u->next)
		if (u->pub.umem_id == id && u->mc == mc)
			return u;
	return NULL;
}

static struct model_uar *uar_find(struct model_ctx *mc, uint32_t id)
{
	for (struct model_uar *u = g.uars; u != NULL; u = u->next)
		if (u->pub.page_id == id && u->mc == mc)
			return u;
	return NULL;
}

static struct model_obj *obj_find(struct model_ctx *mc, int kind, uint32_t id)
{
	for (struct model_obj *o = g.objs; o != NULL; o = o->next)
		if (o->kind == kind && o->id == id && (mc == NULL || o->mc == mc))
			return o;
	return NULL;
}

/* [off, off + len) inside the umem: the pointer, or NULL. */
static uint8_t *umem_at(struct model_ctx *mc, uint32_t id, uint64_t off, uint64_t len)
{
	struct model_umem *u = umem_find(mc, id);

	if (u == NULL || off > u->size || len > u->size - off)
		return NULL;
	return u->addr + off;
}

int model_devx_has_qpn(uint32_t qpn)
{
	int found;

	pthread_mutex_lock(&g.lock);
	found = obj_find(NULL, OBJ_QP, qpn) != NULL;
	pthread_mutex_unlock(&g.lock);
	return found;
}

/* ---- caps ------------------------------------------------------------------- */

static uint32_t ts_cap(const struct model_caps *c)
{
	return c->ts_free && c->ts_default ? TS_CAP_BOTH : c->ts_free ? TS_CAP_FREE : TS_CAP_RT;
}

static uint32_t log2u(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << (l + 1)) <= v)
		l++;
	return l;
}

static int query_hca_cap(struct model_ctx *mc, const uint8_t *in, uint8_t *out, size_t outlen)
{
	uint32_t op_mod = get_bits(in, IN_OP_MOD), type = op_mod >> 1;
	const struct model_caps *c = &mc->caps;

	if (outlen < CAP_OUT_BYTES)
		return fail(out, outlen, ST_BAD_OUTP_LEN, SY_OUTLEN, "QUERY_HCA_CAP: out box %zu < %d bytes", outlen,
			    CAP_OUT_BYTES);
	memset(out, 0, outlen);
	if (type == HCA_CAP_GENERAL) {
		set_bits(out, CAP_LOG_MAX_QP_SZ, log2u(c->max_qp_wr));
		set_bits(out, CAP_LOG_MAX_QP, log2u(MODEL_MAX_QP));
		set_bits(out, CAP_LOG_MAX_CQ_SZ, 16);
		set_bits(out, CAP_LOG_MAX_CQ, 16);
		set_bits(out, CAP_LOG_MAX_RA_REQ_QP, log2u(c->max_rd_atomic));
		set_bits(out, CAP_LOG_MAX_RA_RES_QP, log2u(c->max_rd_atomic));
		set_bits(out, CAP_PORT_TYPE, c->roce ? 1 : 0);
		set_bits(out, CAP_NUM_PORTS, 1);
		set_bits(out, CAP_LOG_MAX_MSG, 30);
		set_bits(out, CAP_CQE_VERSION, 1);
		set_bits(out, CAP_ROCE, c->roce);
		set_bits(out, CAP_LAG_TX_PORT_AFFINITY, c->lag);
		set_bits(out, CAP_NUM_LAG_PORTS, c->lag ? 2 : 0);
		set_bits(out, CAP_LOG_MAX_PD, 16);
		set_bits(out, CAP_SQ_TS_FORMAT, ts_cap(c));
		set_bits(out, CAP_RQ_TS_FORMAT, ts_cap(c));
	} else if (type == HCA_CAP_ROCE && c->roce) {
		set_bits(out, ROCE_CAP_QP_TS_FORMAT, ts_cap(c));
	} else {
		return fail(out, outlen, ST_BAD_PARAM, SY_OPCODE, "QUERY_HCA_CAP: op_mod 0x%x (capability type %u) "
			    "not offered", op_mod, type);
	}
	return 0;
}

MODEL_EXPORT int mlx5dv_devx_general_cmd(struct ibv_context *c, const void *inp, size_t inlen, void *outp,
					 size_t outlen)
{
	struct model_ctx *mc = devx_ctx(c);
	const uint8_t *in = inp;
	uint8_t *out = outp;
	uint32_t op;

	if (mc == NULL)
		return EOPNOTSUPP;
	if (inlen < CMD_MIN_IN || outlen < CMD_MIN_IN)
		return fail(out, outlen, ST_BAD_INP_LEN, SY_INLEN, "general command: in %zu / out %zu bytes", inlen,
			    outlen), EREMOTEIO;
	op = get_bits(in, IN_OPCODE);
	if (op == OP_QUERY_HCA_CAP)
		return query_hca_cap(mc, in, out, outlen) ? EREMOTEIO : 0;
	if (op == OP_QUERY_LAG) {
		memset(out, 0, outlen);
		if (!mc->caps.lag)
			return fail(out, outlen, ST_BAD_RES_STATE, SY_LAG, "QUERY_LAG: no LAG on this device"),
			       EREMOTEIO;
		set_bits(out, LAG_STATE, 1);
		return 0;
	}
	return fail(out, outlen, ST_BAD_OP, SY_OPCODE, "general command: opcode 0x%x not handled", op), EREMOTEIO;
}

/* ---- pointer surgery on the software NIC's objects ---------------------------- */

/* Points a software NIC CQ at the client's ring and doorbell record (the
 * engine quiesced): they are what the client polls. */
static void cq_adopt(struct model_obj *o, uint8_t *ring, uint32_t *dbrec)
{
	struct marrow_emu_device *dev = o->mc->dev->emu;

	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	o->cq_own_buf = o->cq->buf;
	o->cq_own_dbrec = o->cq->dbrec;
	o->cq_cli_buf = ring;
	o->cq_cli_dbrec = dbrec;
	o->cq->buf = ring;
	o->cq->dbrec = dbrec;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
}

static void cq_release(struct model_obj *o)
{
	struct marrow_emu_device *dev = o->mc->dev->emu;

	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	o->cq->buf = o->cq_own_buf;
	o->cq->dbrec = o->cq_own_dbrec;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
}

static void qp_adopt(struct model_obj *o, uint8_t *sq, const uint32_t *dbrec, uint8_t *uar)
{
	struct marrow_emu_device *dev = o->mc->dev->emu;

	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	o->qp_own_sq = o->qp->sq;
	o->qp_own_dbrec = o->qp->dbrec;
	o->qp_own_uar_page = o->qp->uar->page;
	o->qp->sq = sq;
	o->qp->dbrec = dbrec;
	o->qp->uar->page = uar;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
}

static void qp_release(struct model_obj *o)
{
	struct marrow_emu_device *dev = o->mc->dev->emu;

	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	o->qp->sq = o->qp_own_sq;
	o->qp->dbrec = o->qp_own_dbrec;
	o->qp->uar->page = o->qp_own_uar_page;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
}

/* ---- CREATE_CQ / CREATE_QP ------------------------------------------------------ */

static struct model_obj *create_cq(struct model_ctx *mc, const uint8_t *in, uint8_t *out, size_t outlen)
{
	struct marrow_emu_cq_attr a = { .size = sizeof(a) };
	uint32_t log = get_bits(in, CQ_LOG_SIZE), cqes;
	uint8_t *ring, *dbr;
	struct model_obj *o;
	int rc;

	if (get_bits(in, CQ_CQE_SZ) != 0)
		return fail(out, outlen, ST_BAD_PARAM, SY_CQE_SZ, "CREATE_CQ: cqe_sz %u (the model writes 64-byte "
			    "CQEs)", get_bits(in, CQ_CQE_SZ)), NULL;
	if (log > 16)
		return fail(out, outlen, ST_BAD_PARAM, SY_CQ_SIZE, "CREATE_CQ: log_cq_size %u above log_max_cq_sz 16",
			    log), NULL;
	if (get_bits(in, CQ_CC) || get_bits(in, CQ_OI))
		return fail(out, outlen, ST_BAD_PARAM, SY_CQ_FLAGS, "CREATE_CQ: collapsed / overrun-ignore CQs are "
			    "not modelled on DevX"), NULL;
	if (get_bits(in, CQ_EQN) != MODEL_EQN)
		return fail(out, outlen, ST_BAD_PARAM, SY_NO_EQ, "CREATE_CQ: c_eqn %u is not an EQ of this device "
			    "(mlx5dv_devx_query_eqn says %d)", get_bits(in, CQ_EQN), MODEL_EQN), NULL;
	if (uar_find(mc, get_bits(in, CQ_UAR_PAGE)) == NULL)
		return fail(out, outlen, ST_BAD_RES, SY_NO_UAR, "CREATE_CQ: uar_page %u was not allocated",
			    get_bits(in, CQ_UAR_PAGE)), NULL;
	cqes = 1u << log;
	if (!get_bits(in, CQ_UMEM_VALID) || !get_bits(in, CQ_DBR_UMEM_VALID))
		return fail(out, outlen, ST_BAD_PARAM, SY_NO_UMEM, "CREATE_CQ: the model takes the ring and the "
			    "doorbell record from umems (cq_umem_valid / dbr_umem_valid 0)"), NULL;
	ring = umem_at(mc, get_bits(in, CQ_UMEM_ID), get64(in, CQ_UMEM_OFFSET), (uint64_t)cqes * 64);
	dbr = umem_at(mc, get_bits(in, CQ_DBR_UMEM_ID), get64(in, CQ_DBR_ADDR), 8);
	if (ring == NULL || dbr == NULL)
		return fail(out, outlen, ST_BAD_PARAM, SY_UMEM_RANGE, "CREATE_CQ: %s umem %u does not hold the %s",
			    ring == NULL ? "CQ" : "DBR", get_bits(in, ring == NULL ? CQ_UMEM_ID : CQ_DBR_UMEM_ID),
			    ring == NULL ? "ring" : "doorbell record"), NULL;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return fail(out, outlen, ST_BAD_RES, SY_BUSY, "CREATE_CQ: out of memory"), NULL;
	a.log_cqe_cnt = log;
	o->cv.size = sizeof(o->cv);
	rc = marrow_emu_cq_create(mc->dev->emu, &a, &o->cq, &o->cv);
	if (rc) {
		free(o);
		return fail(out, outlen, ST_BAD_RES, SY_BUSY, "CREATE_CQ: %s", marrow_last_error()), NULL;
	}
	o->kind = OBJ_CQ;
	o->mc = mc;
	o->id = o->cv.cqn;
	cq_adopt(o, ring, (uint32_t *)dbr);
	memset(out, 0, outlen);
	set_bits(out, OUT_ID, o->id);
	return o;
}

static struct model_obj *create_qp(struct model_ctx *mc, const uint8_t *in, uint8_t *out, size_t outlen)
{
	struct marrow_emu_qp_attr a = { .size = sizeof(a) };
	uint32_t log_sq = get_bits(in, QPC_LOG_SQ_SIZE), ts = get_bits(in, QPC_TS_FORMAT), tcap = ts_cap(&mc->caps);
	struct model_obj *o, *scq;
	struct model_uar *uar;
	struct model_pd *pd = NULL;
	uint8_t *sq, *dbr;
	int rc;

	if (get_bits(in, QPC_ST) != QPC_ST_RC)
		return fail(out, outlen, ST_BAD_PARAM, SY_QP_ST, "CREATE_QP: st 0x%x (the model has RC QPs only)",
			    get_bits(in, QPC_ST)), NULL;
	if (log_sq < 1 || (1u << log_sq) > mc->caps.max_qp_wr || get_bits(in, QPC_NO_SQ))
		return fail(out, outlen, ST_BAD_PARAM, SY_SQ_SIZE, "CREATE_QP: log_sq_size %u outside 1..%u (caps "
			    "log_max_qp_sz) or no_sq", log_sq, log2u(mc->caps.max_qp_wr)), NULL;
	if (get_bits(in, QPC_RQ_TYPE) != RQ_TYPE_ZERO)
		return fail(out, outlen, ST_BAD_PARAM, SY_RQ, "CREATE_QP: rq_type %u (the model's DevX QPs have a "
			    "zero-size RQ)", get_bits(in, QPC_RQ_TYPE)), NULL;
	/* The caps say which timestamp formats the QP may ask for (free-running:
	 * caps 0 or 2; real time: 1 or 2; default always). */
	if (ts > TS_REAL_TIME || (ts == TS_FREE_RUNNING && tcap == TS_CAP_RT) ||
	    (ts == TS_REAL_TIME && tcap == TS_CAP_FREE))
		return fail(out, outlen, ST_BAD_PARAM, SY_TS_FORMAT, "CREATE_QP: ts_format %u not offered by the caps "
			    "(sq_ts_format %u)", ts, tcap), NULL;
	scq = obj_find(mc, OBJ_CQ, get_bits(in, QPC_CQN_SND));
	if (scq == NULL || obj_find(mc, OBJ_CQ, get_bits(in, QPC_CQN_RCV)) == NULL)
		return fail(out, outlen, ST_BAD_RES, SY_NO_CQ, "CREATE_QP: cqn_snd 0x%x / cqn_rcv 0x%x is no CQ of "
			    "this context", get_bits(in, QPC_CQN_SND), get_bits(in, QPC_CQN_RCV)), NULL;
	uar = uar_find(mc, get_bits(in, QPC_UAR_PAGE));
	if (uar == NULL)
		return fail(out, outlen, ST_BAD_RES, SY_NO_UAR, "CREATE_QP: uar_page %u was not allocated",
			    get_bits(in, QPC_UAR_PAGE)), NULL;
	pd = model_pd_by_pdn(mc, get_bits(in, QPC_PD));
	if (pd == NULL)
		return fail(out, outlen, ST_BAD_RES, SY_NO_PD, "CREATE_QP: pd %u is no PD of this context",
			    get_bits(in, QPC_PD)), NULL;
	if (!get_bits(in, QP_WQ_UMEM_VALID) || !get_bits(in, QPC_DBR_UMEM_VALID))
		return fail(out, outlen, ST_BAD_PARAM, SY_NO_UMEM, "CREATE_QP: the model takes the SQ and the "
			    "doorbell record from umems (wq_umem_valid / dbr_umem_valid 0)"), NULL;
	sq = umem_at(mc, get_bits(in, QP_WQ_UMEM_ID), get64(in, QP_WQ_UMEM_OFFSET), (uint64_t)64 << log_sq);
	dbr = umem_at(mc, get_bits(in, QPC_DBR_UMEM_ID), get64(in, QPC_DBR_ADDR), 8);
	if (sq == NULL || dbr == NULL)
		return fail(out, outlen, ST_BAD_PARAM, SY_UMEM_RANGE, "CREATE_QP: %s umem does not hold the %s",
			    sq == NULL ? "WQ" : "DBR", sq == NULL ? "SQ" : "doorbell record"), NULL;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return fail(out, outlen, ST_BAD_RES, SY_BUSY, "CREATE_QP: out of memory"), NULL;
	a.send_cq = scq->cq;
	a.log_sq_wqebb_cnt = log_sq;
	a.max_inline_data = 972;
	o->qv.size = sizeof(o->qv);
	rc = marrow_emu_qp_create(pd->emu, &a, &o->qp, &o->qv);
	if (rc) {
		free(o);
		return fail(out, outlen, ST_BAD_RES, SY_BUSY, "CREATE_QP: %s", marrow_last_error()), NULL;
	}
	o->kind = OBJ_QP;
	o->mc = mc;
	o->id = o->qv.qpn;
	o->scq = scq;
	o->pd = pd;
	o->state = 0;
	qp_adopt(o, sq, (const uint32_t *)dbr, uar->page);
	memset(out, 0, outlen);
	set_bits(out, OUT_ID, o->id);
	return o;
}

MODEL_EXPORT struct mlx5dv_devx_obj *mlx5dv_devx_obj_create(struct ibv_context *c, const void *inp, size_t inlen,
							    void *outp, size_t outlen)
{
	struct model_ctx *mc = devx_ctx(c);
	const uint8_t *in = inp;
	uint8_t *out = outp;
	struct model_obj *o = NULL;
	uint32_t op;

	if (mc == NULL)
		return NULL;
	if (inlen < CMD_MIN_IN || outlen < CMD_MIN_IN)
		return fail(out, outlen, ST_BAD_INP_LEN, SY_INLEN, "create: in %zu / out %zu bytes", inlen, outlen),
		       NULL;
	op = get_bits(in, IN_OPCODE);
	pthread_mutex_lock(&g.lock);
	if ((op == OP_CREATE_CQ && inlen < CQ_IN_BYTES) || (op == OP_CREATE_QP && inlen < QP_IN_BYTES))
		fail(out, outlen, ST_BAD_INP_LEN, SY_INLEN, "opcode 0x%x: in box %zu bytes, short", op, inlen);
	else if (op == OP_CREATE_CQ)
		o = create_cq(mc, in, out, outlen);
	else if (op == OP_CREATE_QP)
		o = create_qp(mc, in, out, outlen);
	else
		fail(out, outlen, ST_BAD_OP, SY_OPCODE, "create: opcode 0x%x is not an object the model creates", op);
	if (o != NULL) {
		o->next = g.objs;
		g.objs = o;
	}
	pthread_mutex_unlock(&g.lock);
	return (struct mlx5dv_devx_obj *)o;
}

/* ---- QP state changes -------------------------------------------------------------- */

static int to_emu_state(uint32_t prm)
{
	return prm == 6 ? MARROW_QPS_ERR : (int)prm;
}

static uint32_t qp_state_now(struct model_obj *o)
{
	int s = 0;

	marrow_emu_qp_state(o->qp, &s);
	return s == MARROW_QPS_ERR ? 6u : (uint32_t)s; /* an error CQE moved it */
}

/* The path of INIT2RTR: RoCE needs the destination MAC, GID and a source
 * GID of the table; IB a LID (or a GRH). The destination must be this
 * device (a QP of this process). */
static int check_path(struct model_obj *o, const uint8_t *in, uint8_t *out, size_t outlen)
{
	const struct model_caps *c = &o->mc->caps;
	uint8_t rgid[16];
	int zero_gid, local = 0;

	memcpy(rgid, in + PAP_RGID / 8, 16);
	zero_gid = memcmp(rgid, (uint8_t[16]){ 0 }, 16) == 0;
	if (get_bits(in, PAP_VHCA_PORT) > 1)
		return fail(out, outlen, ST_BAD_PARAM, SY_PORT, "INIT2RTR: vhca_port_num %u (one port)",
			    get_bits(in, PAP_VHCA_PORT));
	if (c->roce) {
		if (get_bits(in, PAP_RMAC_HI) == 0 && get_bits(in, PAP_RMAC_LO) == 0)
			return fail(out, outlen, ST_BAD_PARAM, SY_PATH, "INIT2RTR: RoCE address path without a "
				    "destination MAC (rmac 0)");
		if (zero_gid)
			return fail(out, outlen, ST_BAD_PARAM, SY_PATH, "INIT2RTR: RoCE address path without a "
				    "destination GID (rgid_rip 0)");
		if (get_bits(in, PAP_SRC_ADDR_INDEX) >= c->gid_tbl_len)
			return fail(out, outlen, ST_BAD_PARAM, SY_SGID, "INIT2RTR: src_addr_index %u outside the GID "
				    "table [0, %u)", get_bits(in, PAP_SRC_ADDR_INDEX), c->gid_tbl_len);
		if (get_bits(in, PAP_HOP_LIMIT) == 0)
			return fail(out, outlen, ST_BAD_PARAM, SY_PATH, "INIT2RTR: RoCE hop_limit 0");
	} else if (!get_bits(in, PAP_GRH) && get_bits(in, PAP_RLID) == 0) {
		return fail(out, outlen, ST_BAD_PARAM, SY_PATH, "INIT2RTR: InfiniBand address path without a LID "
			    "or a GRH");
	}
	if (c->roce || get_bits(in, PAP_GRH)) {
		for (uint32_t i = 0; i < c->gid_tbl_len; i++)
			local |= memcmp(rgid, o->mc->gids[i].raw, 16) == 0;
	} else {
		local = get_bits(in, PAP_RLID) == o->mc->dev->lid;
	}
	if (!local)
		return fail(out, outlen, ST_BAD_PARAM, SY_ROUTE, "INIT2RTR: destination %s is not this model device "
			    "(another process needs the shared-memory wire)", c->roce || get_bits(in, PAP_GRH) ?
			    "GID" : "LID");
	return 0;
}

static int modify_qp(struct model_obj *o, uint32_t op, const uint8_t *in, uint8_t *out, size_t outlen)
{
	const struct model_caps *c = &o->mc->caps;
	uint32_t cur = qp_state_now(o), need, to, rd_log = log2u(c->max_rd_atomic);
	int rc = MARROW_OK;

	switch (op) {
	case OP_RST2INIT: need = 0; to = 1; break;
	case OP_INIT2INIT: need = 1; to = 1; break;
	case OP_INIT2RTR: need = 1; to = 2; break;
	case OP_RTR2RTS: need = 2; to = 3; break;
	case OP_RTS2RTS: need = 3; to = 3; break;
	case OP_2ERR: need = cur; to = 6; break;
	case OP_2RST: need = cur; to = 0; break;
	default:
		return fail(out, outlen, ST_BAD_OP, SY_OPCODE, "modify: opcode 0x%x is not a QP transition", op);
	}
	if (cur != need)
		return fail(out, outlen, ST_BAD_QP_STATE, SY_STATE, "QP 0x%x: opcode 0x%x needs state %u, the QP is in "
			    "%u", o->id, op, need, cur);
	if (op == OP_RST2INIT || op == OP_INIT2INIT) {
		if (get_bits(in, PAP_VHCA_PORT) != 1)
			return fail(out, outlen, ST_BAD_PARAM, SY_PORT, "RST2INIT: vhca_port_num %u (the model has "
				    "port 1)", get_bits(in, PAP_VHCA_PORT));
		if (get_bits(in, PAP_PKEY_INDEX) != 0)
			return fail(out, outlen, ST_BAD_PARAM, SY_PKEY, "RST2INIT: pkey_index %u outside [0, 1)",
				    get_bits(in, PAP_PKEY_INDEX));
		if (get_bits(in, QPC_LAG_AFFINITY) > (c->lag ? 2u : 0u))
			return fail(out, outlen, ST_BAD_PARAM, SY_LAG, "RST2INIT: lag_tx_port_affinity %u above the "
				    "LAG's %u ports", get_bits(in, QPC_LAG_AFFINITY), c->lag ? 2 : 0);
		o->lag_affinity = get_bits(in, QPC_LAG_AFFINITY);
		{
			struct marrow_emu_device *dev = o->mc->dev->emu;

			pthread_mutex_lock(&dev->ctl_lock);
			emu_quiesce(dev);
			o->qp->access = (get_bits(in, QPC_RWE) ? MARROW_ACCESS_REMOTE_WRITE : 0) |
					(get_bits(in, QPC_RRE) ? MARROW_ACCESS_REMOTE_READ : 0) |
					(get_bits(in, QPC_RAE) ? MARROW_ACCESS_REMOTE_ATOMIC : 0);
			emu_unquiesce(dev);
			pthread_mutex_unlock(&dev->ctl_lock);
		}
		if (op == OP_RST2INIT)
			rc = marrow_emu_qp_modify(o->qp, MARROW_QPS_INIT, 0);
	} else if (op == OP_INIT2RTR) {
		uint32_t mtu = get_bits(in, QPC_MTU), rqpn = get_bits(in, QPC_REMOTE_QPN);

		if (mtu < 1 || mtu > c->active_mtu)
			return fail(out, outlen, ST_BAD_PARAM, SY_MTU, "INIT2RTR: mtu %u outside 1..%u (the port's)",
				    mtu, c->active_mtu);
		if (get_bits(in, QPC_LOG_RRA_MAX) > rd_log)
			return fail(out, outlen, ST_BAD_PARAM, SY_RRA, "INIT2RTR: log_rra_max %u above caps "
				    "log_max_ra_res_qp %u", get_bits(in, QPC_LOG_RRA_MAX), rd_log);
		if (c->lag && o->lag_affinity == 0)
			return fail(out, outlen, ST_BAD_PARAM, SY_LAG, "INIT2RTR: bonded port and "
				    "lag_tx_port_affinity 0 at RST2INIT");
		if (c->roce && get_bits(in, PAP_ETH_PRIO) > 7)
			return fail(out, outlen, ST_BAD_PARAM, SY_PRIO, "INIT2RTR: eth_prio %u",
				    get_bits(in, PAP_ETH_PRIO));
		if (check_path(o, in, out, outlen))
			return -1;
		if (obj_find(NULL, OBJ_QP, rqpn) == NULL && model_qp_lookup(rqpn) == NULL)
			return fail(out, outlen, ST_BAD_PARAM, SY_REMOTE_QPN, "INIT2RTR: remote_qpn 0x%x is no QP of "
				    "this model device", rqpn);
		rc = marrow_emu_qp_modify(o->qp, MARROW_QPS_RTR, rqpn);
		if (rc == MARROW_OK)
			rc = marrow_emu_qp_set_timers(o->qp, 14, 7, 6, get_bits(in, QPC_MIN_RNR_NAK));
	} else if (op == OP_RTR2RTS || op == OP_RTS2RTS) {
		if (get_bits(in, QPC_LOG_SRA_MAX) > rd_log)
			return fail(out, outlen, ST_BAD_PARAM, SY_SRA, "RTR2RTS: log_sra_max %u above caps "
				    "log_max_ra_req_qp %u", get_bits(in, QPC_LOG_SRA_MAX), rd_log);
		rc = marrow_emu_qp_set_timers(o->qp, get_bits(in, PAP_ACK_TIMEOUT), get_bits(in, QPC_RETRY_COUNT),
					      get_bits(in, QPC_RNR_RETRY), o->qp->min_rnr_timer);
		if (rc == MARROW_OK && op == OP_RTR2RTS)
			rc = marrow_emu_qp_modify(o->qp, MARROW_QPS_RTS, 0);
	} else {
		rc = marrow_emu_qp_modify(o->qp, to_emu_state(to), 0);
	}
	if (rc)
		return fail(out, outlen, ST_BAD_PARAM, SY_BUSY, "QP 0x%x: %s", o->id, marrow_last_error());
	o->state = to;
	memset(out, 0, outlen);
	return 0;
}

MODEL_EXPORT int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *inp, size_t inlen, void *outp,
					size_t outlen)
{
	struct model_obj *o = (struct model_obj *)obj;
	const uint8_t *in = inp;
	uint8_t *out = outp;
	int rc;

	if (inlen < CMD_MIN_IN || outlen < CMD_MIN_IN)
		return fail(out, outlen, ST_BAD_INP_LEN, SY_INLEN, "modify: in %zu / out %zu bytes", inlen, outlen),
		       EREMOTEIO;
	if (o->kind != OBJ_QP)
		return fail(out, outlen, ST_BAD_OP, SY_OPCODE, "modify: a CQ cannot be modified here"), EREMOTEIO;
	if (get_bits(in, IN_QPN) != o->id)
		return fail(out, outlen, ST_BAD_PARAM, SY_QPN_MISMATCH, "modify: qpn 0x%x in the box, the object is "
			    "QP 0x%x", get_bits(in, IN_QPN), o->id), EREMOTEIO;
	if (get_bits(in, IN_OPCODE) != OP_2RST && get_bits(in, IN_OPCODE) != OP_2ERR && inlen < QP_IN_BYTES)
		return fail(out, outlen, ST_BAD_INP_LEN, SY_INLEN, "modify: in box %zu bytes, short", inlen), EREMOTEIO;
	pthread_mutex_lock(&g.lock);
	rc = modify_qp(o, get_bits(in, IN_OPCODE), in, out, outlen);
	pthread_mutex_unlock(&g.lock);
	return rc ? EREMOTEIO : 0;
}

MODEL_EXPORT int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *inp, size_t inlen, void *outp,
				       size_t outlen)
{
	struct model_obj *o = (struct model_obj *)obj;
	const uint8_t *in = inp;
	uint8_t *out = outp;

	if (inlen < CMD_MIN_IN || outlen < QP_IN_BYTES)
		return fail(out, outlen, ST_BAD_OUTP_LEN, SY_OUTLEN, "query: in %zu / out %zu bytes", inlen, outlen),
		       EREMOTEIO;
	if (o->kind != OBJ_QP || get_bits(in, IN_OPCODE) != OP_QUERY_QP)
		return fail(out, outlen, ST_BAD_OP, SY_OPCODE, "query: opcode 0x%x on this object",
			    get_bits(in, IN_OPCODE)), EREMOTEIO;
	memset(out, 0, outlen);
	set_bits(out, QPC_STATE, qp_state_now(o));
	set_bits(out, QPC_ST, QPC_ST_RC);
	set_bits(out, QPC_CQN_SND, o->scq->id);
	return 0;
}

MODEL_EXPORT int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	struct model_obj *o = (struct model_obj *)obj, **p;
	int rc;

	pthread_mutex_lock(&g.lock);
	if (o->kind == OBJ_CQ) {
		for (struct model_obj *q = g.objs; q != NULL; q = q->next)
			if (q->kind == OBJ_QP && q->scq == o) {
				pthread_mutex_unlock(&g.lock);
				return EBUSY;
			}
		cq_release(o);
		rc = marrow_emu_cq_destroy(o->cq);
		if (rc)
			cq_adopt(o, o->cq_cli_buf, o->cq_cli_dbrec); /* still the client's */
	} else {
		qp_release(o);
		rc = marrow_emu_qp_destroy(o->qp);
	}
	if (rc) {
		pthread_mutex_unlock(&g.lock);
		return EBUSY;
	}
	for (p = &g.objs; *p != NULL; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			break;
		}
	pthread_mutex_unlock(&g.lock);
	free(o);
	return 0;
}
