/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * The verbs surface of the mlx5 model: device list, context, queries, PD,
 * MR, CQ, QP (create / modify / query / destroy) and mlx5dv_init_obj. Every
 * refusal returns the errno the kernel or libmlx5 would (EINVAL for an
 * attribute outside the device's limits or a transition the IB state table
 * does not allow) and leaves the object as it was. docs/design/mlx5-model.md.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/marrow_common.h"
#include "softnic/emu_internal.h"
#include "model_internal.h"

/* verbs.h wraps these names in macros; the model defines the functions. */
#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

#define MODEL_EXPORT __attribute__((visibility("default")))

static struct model_dev g_dev = { .lock = PTHREAD_MUTEX_INITIALIZER };
static pthread_once_t g_dev_once = PTHREAD_ONCE_INIT;

/* Live QPs by QPN: a CQ may serve QPs of several contexts. */
static pthread_mutex_t g_qps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct model_qp *g_qps[MODEL_MAX_QP];

int model_errno_from_marrow(int rc)
{
	switch (rc) {
	case MARROW_OK: return 0;
	case MARROW_ENOMEM: return ENOMEM;
	case MARROW_EBUSY: return EBUSY;
	case MARROW_ENOSPC: return ENOSPC;
	default: return EINVAL;
	}
}

/* The reason of the last refusal, for tests and diagnostics: firmware
 * answers with an errno only, and so does the model's verbs surface. */
static __thread char g_why[256];

__attribute__((format(printf, 2, 3)))
static void refuse(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g_why, sizeof(g_why), fmt, ap);
	va_end(ap);
	errno = err;
}

/* An expression, so that "return REFUSE(...), -1;" reads as one refusal. */
#define REFUSE(err, ...) refuse((err), __VA_ARGS__)

MODEL_EXPORT const char *marrow_mlx5model_why(void)
{
	return g_why;
}

static void dev_init(void)
{
	pid_t pid = getpid();

	g_dev.ibdev.node_type = IBV_NODE_CA;
	g_dev.ibdev.transport_type = IBV_TRANSPORT_IB;
	snprintf(g_dev.ibdev.name, sizeof(g_dev.ibdev.name), "%s", MODEL_DEV_NAME);
	snprintf(g_dev.ibdev.dev_name, sizeof(g_dev.ibdev.dev_name), "uverbs-model0");
	snprintf(g_dev.ibdev.dev_path, sizeof(g_dev.ibdev.dev_path), "(mlx5 model: no sysfs)");
	snprintf(g_dev.ibdev.ibdev_path, sizeof(g_dev.ibdev.ibdev_path), "(mlx5 model: no sysfs)");
	/* One identity per process: two ranks on one host are two hosts. */
	g_dev.guid = 0x0002c90300000000ull | ((uint64_t)(uint32_t)pid << 4);
	g_dev.lid = (uint16_t)(1 + (uint32_t)pid % 0xbffe);
}

MODEL_EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list;

	pthread_once(&g_dev_once, dev_init);
	list = calloc(2, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &g_dev.ibdev;
	if (num)
		*num = 1;
	return list;
}

MODEL_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

MODEL_EXPORT const char *ibv_get_device_name(struct ibv_device *d)
{
	return d ? d->name : NULL;
}

MODEL_EXPORT bool mlx5dv_is_supported(struct ibv_device *d)
{
	return d == &g_dev.ibdev;
}

static struct model_ctx *mctx(struct ibv_context *c)
{
	return (struct model_ctx *)c;
}

static int model_query_port_full(struct ibv_context *c, uint8_t port, struct ibv_port_attr *pa);
static int model_query_device(struct ibv_context *c, struct ibv_device_attr *a);

static int compat_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *pa)
{
	struct ibv_port_attr full;
	int err = model_query_port_full(c, port, &full);

	if (err == 0)
		memcpy(pa, &full, offsetof(struct ibv_port_attr, port_cap_flags2));
	return err;
}

static int open_emu(const struct model_caps *caps)
{
	struct marrow_emu_device_attr a;
	int rc;

	if (g_dev.emu != NULL)
		return 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.poll_mode = caps->hot ? MARROW_EMU_POLL_HOT : MARROW_EMU_POLL_IDLE;
	a.engine_threads = 1;
	a.idle_sleep_max_ns = 20000;
	a.engine_cpu = -1;
	a.quiet = 1; /* records say nic: mlx5-model, hardware: false */
	rc = marrow_emu_device_open(&a, &g_dev.emu);
	if (rc) {
		REFUSE(ENOMEM, "software NIC: %s", marrow_last_error());
		return -1;
	}
	return 0;
}

static struct ibv_context *open_ctx(struct ibv_device *d, int devx)
{
	struct model_ctx *mc;
	const char *spec = getenv("MARROW_MLX5MODEL");
	char why[400];

	if (d != &g_dev.ibdev) {
		REFUSE(EINVAL, "not a device of the mlx5 model");
		return NULL;
	}
	mc = calloc(1, sizeof(*mc));
	if (mc == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (model_caps_parse(spec, &mc->caps, why, sizeof(why))) {
		fprintf(stderr, "marrow mlx5 model: %s\n", why);
		free(mc);
		REFUSE(EINVAL, "%.250s", why);
		return NULL;
	}
	if (devx && !mc->caps.devx) {
		free(mc);
		REFUSE(EOPNOTSUPP, "DevX disabled by MARROW_MLX5MODEL devx=0");
		return NULL;
	}
	pthread_mutex_lock(&g_dev.lock);
	if (open_emu(&mc->caps)) {
		pthread_mutex_unlock(&g_dev.lock);
		free(mc);
		return NULL;
	}
	g_dev.refs++;
	pthread_mutex_unlock(&g_dev.lock);
	mc->dev = &g_dev;
	mc->devx = devx;
	mc->next_pdn = 1;
	model_gid_table(&mc->caps, g_dev.guid, mc->gids);
	mc->ctx.device = d;
	mc->ctx.cmd_fd = -1;
	mc->ctx.async_fd = -1;
	mc->ctx.num_comp_vectors = 1;
	mc->ctx.abi_compat = NULL; /* not an extended context: verbs_get_ctx() says so */
	pthread_mutex_init(&mc->ctx.mutex, NULL);
	mc->ctx.ops._compat_query_device = model_query_device;
	mc->ctx.ops._compat_query_port = compat_query_port;
	mc->ctx.ops.poll_cq = model_poll_cq;
	mc->ctx.ops.post_send = model_post_send;
	mc->ctx.ops.post_recv = model_post_recv;
	return &mc->ctx;
}

MODEL_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *d)
{
	return open_ctx(d, 0);
}

MODEL_EXPORT struct ibv_context *mlx5dv_open_device(struct ibv_device *d, struct mlx5dv_context_attr *attr)
{
	if (attr != NULL && (attr->flags & ~(uint64_t)MLX5DV_CONTEXT_FLAGS_DEVX)) {
		REFUSE(EOPNOTSUPP, "mlx5dv_open_device: flags 0x%llx beyond DEVX",
		       (unsigned long long)attr->flags);
		return NULL;
	}
	return open_ctx(d, attr != NULL && (attr->flags & MLX5DV_CONTEXT_FLAGS_DEVX));
}

MODEL_EXPORT int ibv_close_device(struct ibv_context *c)
{
	struct model_ctx *mc = mctx(c);
	struct marrow_emu_device *emu = NULL;

	pthread_mutex_lock(&g_dev.lock);
	if (--g_dev.refs == 0) {
		emu = g_dev.emu;
		g_dev.emu = NULL;
	}
	pthread_mutex_unlock(&g_dev.lock);
	if (emu != NULL && marrow_emu_device_close(emu) != MARROW_OK) {
		/* objects of this context still exist: the software NIC stays */
		pthread_mutex_lock(&g_dev.lock);
		g_dev.emu = emu;
		g_dev.refs++;
		pthread_mutex_unlock(&g_dev.lock);
		REFUSE(EBUSY, "ibv_close_device: %s", marrow_last_error());
		return EBUSY;
	}
	pthread_mutex_destroy(&mc->ctx.mutex);
	free(mc);
	return 0;
}

static int model_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	struct model_ctx *mc = mctx(c);

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%s", mc->caps.fw_ver);
	a->node_guid = htobe64(mc->dev->guid);
	a->sys_image_guid = htobe64(mc->dev->guid);
	a->max_mr_size = ~0ull;
	a->page_size_cap = 0xfffff000;
	a->vendor_id = MODEL_VENDOR_ID;
	a->vendor_part_id = MODEL_PART_ID;
	a->hw_ver = 0;
	a->max_qp = MODEL_MAX_QP;
	a->max_qp_wr = (int)mc->caps.max_qp_wr;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT;
	a->max_sge = 30;
	a->max_cq = 1 << 16;
	a->max_cqe = (int)mc->caps.max_cqe;
	a->max_mr = 1 << 16;
	a->max_pd = 1 << 16;
	a->max_qp_rd_atom = (int)mc->caps.max_rd_atomic;
	a->max_qp_init_rd_atom = (int)mc->caps.max_rd_atomic;
	a->max_res_rd_atom = (int)mc->caps.max_rd_atomic * MODEL_MAX_QP;
	a->atomic_cap = IBV_ATOMIC_NONE; /* the software NIC executes no atomics */
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 16;
	a->phys_port_cnt = 1;
	return 0;
}

MODEL_EXPORT int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	return model_query_device(c, a);
}

static int model_query_port_full(struct ibv_context *c, uint8_t port, struct ibv_port_attr *pa)
{
	struct model_ctx *mc = mctx(c);

	if (port != 1) {
		REFUSE(EINVAL, "ibv_query_port: port %u (the model has port 1)", port);
		return EINVAL;
	}
	memset(pa, 0, sizeof(*pa));
	pa->state = (enum ibv_port_state)mc->caps.port_state;
	pa->max_mtu = IBV_MTU_4096;
	pa->active_mtu = (enum ibv_mtu)mc->caps.active_mtu;
	pa->gid_tbl_len = (int)mc->caps.gid_tbl_len;
	pa->port_cap_flags = mc->caps.roce ? 0 : IBV_PORT_CM_SUP;
	pa->max_msg_sz = 1u << 30;
	pa->pkey_tbl_len = 1;
	pa->lid = mc->caps.roce ? 0 : mc->dev->lid;
	pa->sm_lid = mc->caps.roce ? 0 : 1;
	pa->max_vl_num = 4;
	pa->active_width = 2;  /* 4x */
	pa->active_speed = 128; /* NDR per lane in the classic encoding's spirit */
	pa->phys_state = mc->caps.port_state == IBV_PORT_ACTIVE ? 5 : 3; /* LinkUp / Disabled */
	pa->link_layer = mc->caps.roce ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	return 0;
}

/* The exported compat entry (IBVERBS_1.1): fills the prefix that ends
 * before port_cap_flags2, as libibverbs' compat symbol does. */
MODEL_EXPORT int ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *pa)
{
	return compat_query_port(c, port, pa);
}

MODEL_EXPORT int ibv_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	struct model_ctx *mc = mctx(c);

	if (port != 1 || index < 0 || (uint32_t)index >= mc->caps.gid_tbl_len) {
		REFUSE(EINVAL, "ibv_query_gid: port %u index %d outside port 1, [0, %u)", port, index,
		       mc->caps.gid_tbl_len);
		return -1;
	}
	*gid = mc->gids[index];
	return 0;
}

MODEL_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status s)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
	};

	if ((unsigned)s < sizeof(names) / sizeof(names[0]) && names[s] != NULL)
		return names[s];
	return "unknown";
}

/* ---- PD and MR ---------------------------------------------------------- */

MODEL_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	struct model_ctx *mc = mctx(c);
	struct model_pd *p = calloc(1, sizeof(*p));
	int rc;

	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = marrow_emu_pd_alloc(mc->dev->emu, &p->emu);
	if (rc) {
		free(p);
		REFUSE(model_errno_from_marrow(rc), "ibv_alloc_pd: %s", marrow_last_error());
		return NULL;
	}
	p->pd.context = c;
	pthread_mutex_lock(&c->mutex);
	p->pdn = mc->next_pdn++;
	p->next = mc->pds;
	mc->pds = p;
	pthread_mutex_unlock(&c->mutex);
	p->pd.handle = p->pdn;
	return &p->pd;
}

MODEL_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct model_pd *p = (struct model_pd *)pd, **pp;
	struct model_ctx *mc = mctx(pd->context);
	int rc = marrow_emu_pd_free(p->emu);

	if (rc) {
		REFUSE(EBUSY, "ibv_dealloc_pd: %s", marrow_last_error());
		return EBUSY;
	}
	pthread_mutex_lock(&pd->context->mutex);
	for (pp = &mc->pds; *pp != NULL; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	pthread_mutex_unlock(&pd->context->mutex);
	free(p);
	return 0;
}

struct model_pd *model_pd_by_pdn(struct model_ctx *mc, uint32_t pdn)
{
	struct model_pd *p;

	pthread_mutex_lock(&mc->ctx.mutex);
	for (p = mc->pds; p != NULL && p->pdn != pdn; p = p->next)
		;
	pthread_mutex_unlock(&mc->ctx.mutex);
	return p;
}

#define MODEL_ACCESS_KNOWN (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			    IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_RELAXED_ORDERING)

MODEL_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct model_pd *p = (struct model_pd *)pd;
	struct model_mr *m;
	uint32_t lkey, rkey;
	int rc;

	/* The kernel's rules (ib_check_mr_access): remote write or atomic
	 * needs local write; unknown bits are refused. */
	if ((access & ~MODEL_ACCESS_KNOWN) ||
	    ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE))) {
		REFUSE(EINVAL, "ibv_reg_mr: access 0x%x (remote write/atomic need LOCAL_WRITE)", access);
		return NULL;
	}
	if (addr == NULL || len == 0) {
		REFUSE(EINVAL, "ibv_reg_mr: addr %p len %zu", addr, len);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = marrow_emu_mr_reg(p->emu, addr, len, (uint32_t)access & 0xf, &m->emu, &lkey, &rkey);
	if (rc) {
		free(m);
		REFUSE(model_errno_from_marrow(rc), "ibv_reg_mr: %s", marrow_last_error());
		return NULL;
	}
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.handle = lkey;
	m->mr.lkey = lkey;
	m->mr.rkey = rkey;
	return &m->mr;
}

MODEL_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct model_mr *m = (struct model_mr *)mr;
	int rc = marrow_emu_mr_dereg(m->emu);

	if (rc) {
		REFUSE(EBUSY, "ibv_dereg_mr: %s", marrow_last_error());
		return EBUSY;
	}
	free(m);
	return 0;
}

/* ---- CQ ------------------------------------------------------------------ */

static uint32_t log2_ceil(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

MODEL_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context,
					  struct ibv_comp_channel *channel, int comp_vector)
{
	struct model_ctx *mc = mctx(c);
	struct marrow_emu_cq_attr a;
	struct model_cq *q;
	uint32_t log_n;
	int rc;

	/* libmlx5: entries = next power of two of cqe + 1, at most max_cqe + 1 */
	if (cqe < 1 || (uint32_t)cqe > mc->caps.max_cqe || channel != NULL || comp_vector != 0) {
		REFUSE(EINVAL, "ibv_create_cq: cqe %d outside 1..%u, or a channel/vector (the model has no events)",
		       cqe, mc->caps.max_cqe);
		return NULL;
	}
	log_n = log2_ceil((uint32_t)cqe + 1);
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.log_cqe_cnt = log_n;
	q->view.size = sizeof(q->view);
	rc = marrow_emu_cq_create(mc->dev->emu, &a, &q->emu, &q->view);
	if (rc) {
		free(q);
		REFUSE(model_errno_from_marrow(rc), "ibv_create_cq: %s", marrow_last_error());
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	q->cq.context = c;
	q->cq.cq_context = cq_context;
	q->cq.cqe = (int)(1u << log_n) - 1;
	q->cq.handle = q->view.cqn;
	pthread_mutex_init(&q->cq.mutex, NULL);
	pthread_cond_init(&q->cq.cond, NULL);
	return &q->cq;
}

MODEL_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct model_cq *q = (struct model_cq *)cq;
	int rc = marrow_emu_cq_destroy(q->emu);

	if (rc) {
		REFUSE(EBUSY, "ibv_destroy_cq: %s", marrow_last_error());
		return EBUSY;
	}
	pthread_mutex_destroy(&q->lock);
	pthread_mutex_destroy(&q->cq.mutex);
	pthread_cond_destroy(&q->cq.cond);
	free(q);
	return 0;
}

/* ---- QP registry --------------------------------------------------------- */

int model_qp_register(struct model_qp *q)
{
	int rc = -1;

	pthread_mutex_lock(&g_qps_lock);
	for (size_t i = 0; i < sizeof(g_qps) / sizeof(g_qps[0]) && rc; i++) {
		if (g_qps[i] == NULL) {
			g_qps[i] = q;
			rc = 0;
		}
	}
	pthread_mutex_unlock(&g_qps_lock);
	return rc;
}

void model_qp_unregister(struct model_qp *q)
{
	pthread_mutex_lock(&g_qps_lock);
	for (size_t i = 0; i < sizeof(g_qps) / sizeof(g_qps[0]); i++)
		if (g_qps[i] == q)
			g_qps[i] = NULL;
	pthread_mutex_unlock(&g_qps_lock);
}

struct model_qp *model_qp_lookup(uint32_t qpn)
{
	struct model_qp *q = NULL;

	pthread_mutex_lock(&g_qps_lock);
	for (size_t i = 0; i < sizeof(g_qps) / sizeof(g_qps[0]) && q == NULL; i++)
		if (g_qps[i] != NULL && g_qps[i]->qp.qp_num == qpn)
			q = g_qps[i];
	pthread_mutex_unlock(&g_qps_lock);
	return q;
}

/* ---- QP ------------------------------------------------------------------ */

enum {
	WQE_CTRL = 16, WQE_RADDR = 16, WQE_INL_HDR = 4, WQE_DSEG = 16, WQEBB = 64,
	MODEL_MAX_INLINE = 972,   /* ds <= 63: 1008 - ctrl - raddr - inline header */
};

/* Bytes of the largest RC send WQE for these caps: ctrl + raddr + the
 * larger of the inline payload (with its header, 16-byte units) and the
 * gather list. libmlx5 adds room for atomics and UMR; the model sizes for
 * what it executes (docs/design/mlx5-model.md §4). */
static uint32_t wqe_bytes(uint32_t max_inline, uint32_t max_sge)
{
	uint32_t inl = max_inline ? (WQE_INL_HDR + max_inline + 15) / 16 * 16 : 0;
	uint32_t sg = max_sge * WQE_DSEG;

	return WQE_CTRL + WQE_RADDR + (inl > sg ? inl : sg);
}

static int qp_check_init_attr(struct model_ctx *mc, const struct ibv_qp_init_attr *ia)
{
	if (ia->qp_type != IBV_QPT_RC) {
		REFUSE(EOPNOTSUPP, "ibv_create_qp: qp_type %d (the model has RC QPs only)", ia->qp_type);
		return -1;
	}
	if (ia->send_cq == NULL || ia->recv_cq == NULL || ia->srq != NULL) {
		REFUSE(EINVAL, "ibv_create_qp: an RC QP needs send_cq and recv_cq (and no SRQ in the model)");
		return -1;
	}
	if (ia->send_cq->context != &mc->ctx || ia->recv_cq->context != &mc->ctx) {
		REFUSE(EINVAL, "ibv_create_qp: CQ of another context");
		return -1;
	}
	if (ia->cap.max_send_wr == 0 || ia->cap.max_send_wr > mc->caps.max_qp_wr ||
	    ia->cap.max_recv_wr > mc->caps.max_qp_wr) {
		REFUSE(EINVAL, "ibv_create_qp: max_send_wr %u / max_recv_wr %u outside 1..%u", ia->cap.max_send_wr,
		       ia->cap.max_recv_wr, mc->caps.max_qp_wr);
		return -1;
	}
	if (ia->cap.max_send_sge > 30 || ia->cap.max_recv_sge > 30) {
		REFUSE(EINVAL, "ibv_create_qp: max_send_sge %u / max_recv_sge %u above 30", ia->cap.max_send_sge,
		       ia->cap.max_recv_sge);
		return -1;
	}
	if (ia->cap.max_inline_data > MODEL_MAX_INLINE) {
		REFUSE(EINVAL, "ibv_create_qp: max_inline_data %u above %d", ia->cap.max_inline_data,
		       MODEL_MAX_INLINE);
		return -1;
	}
	return 0;
}

MODEL_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	struct model_pd *p = (struct model_pd *)pd;
	struct model_ctx *mc = mctx(pd->context);
	struct marrow_emu_qp_attr ea;
	struct model_qp *q;
	uint32_t bytes, bbs, log_sq, sge, inl;
	int rc;

	if (qp_check_init_attr(mc, ia))
		return NULL;
	sge = ia->cap.max_send_sge ? ia->cap.max_send_sge : 1;
	bytes = wqe_bytes(ia->cap.max_inline_data, sge);
	bbs = (bytes + WQEBB - 1) / WQEBB;
	log_sq = log2_ceil(ia->cap.max_send_wr * bbs);
	if (log_sq < 1)
		log_sq = 1;
	if ((1u << log_sq) > mc->caps.max_qp_wr) {
		REFUSE(EINVAL, "ibv_create_qp: %u WRs of %u WQEBBs need %u WQEBBs, above max_qp_wr %u",
		       ia->cap.max_send_wr, bbs, 1u << log_sq, mc->caps.max_qp_wr);
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ea, 0, sizeof(ea));
	ea.size = sizeof(ea);
	ea.send_cq = ((struct model_cq *)ia->send_cq)->emu;
	ea.recv_cq = ((struct model_cq *)ia->recv_cq)->emu;
	ea.log_sq_wqebb_cnt = log_sq;
	ea.log_rq_wqe_cnt = ia->cap.max_recv_wr ? log2_ceil(ia->cap.max_recv_wr < 2 ? 2 : ia->cap.max_recv_wr) : 0;
	ea.max_rq_sge = ia->cap.max_recv_sge ? ia->cap.max_recv_sge : 1;
	/* what a WQE of this size can carry inline (libmlx5 reports it back too) */
	inl = bbs * WQEBB - WQE_CTRL - WQE_RADDR - WQE_INL_HDR;
	if (inl > MODEL_MAX_INLINE)
		inl = MODEL_MAX_INLINE;
	ea.max_inline_data = ia->cap.max_inline_data ? inl : 0;
	/* Remote access is the responder's qp_access_flags (RST2INIT): the
	 * software NIC's QP starts with none and the INIT step sets it. */
	ea.access = 0;
	q->view.size = sizeof(q->view);
	rc = marrow_emu_qp_create(p->emu, &ea, &q->emu, &q->view);
	if (rc) {
		free(q);
		REFUSE(model_errno_from_marrow(rc), "ibv_create_qp: %s", marrow_last_error());
		return NULL;
	}
	q->sq_wrid = calloc(q->view.sq_wqe_cnt, sizeof(*q->sq_wrid));
	q->sq_end = calloc(q->view.sq_wqe_cnt, sizeof(*q->sq_end));
	q->rq_wrid = calloc(q->view.rq_wqe_cnt ? q->view.rq_wqe_cnt : 1, sizeof(*q->rq_wrid));
	if (q->sq_wrid == NULL || q->sq_end == NULL || q->rq_wrid == NULL) {
		marrow_emu_qp_destroy(q->emu);
		free(q->sq_wrid);
		free(q->sq_end);
		free(q->rq_wrid);
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	q->wqe_bbs = bbs;
	q->sq_sig_all = ia->sq_sig_all;
	q->cap.max_send_wr = q->view.sq_wqe_cnt / bbs;
	q->cap.max_recv_wr = q->view.rq_wqe_cnt;
	q->cap.max_send_sge = sge;
	q->cap.max_recv_sge = ea.max_rq_sge;
	q->cap.max_inline_data = ea.max_inline_data;
	ia->cap = q->cap; /* libmlx5 writes back what it granted */
	q->qp.context = pd->context;
	q->qp.qp_context = ia->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.handle = q->view.qpn;
	q->qp.qp_num = q->view.qpn;
	q->qp.state = IBV_QPS_RESET;
	q->qp.qp_type = IBV_QPT_RC;
	pthread_mutex_init(&q->qp.mutex, NULL);
	pthread_cond_init(&q->qp.cond, NULL);
	q->attr.qp_state = IBV_QPS_RESET;
	q->attr.cap = q->cap;
	if (model_qp_register(q)) {
		pthread_mutex_destroy(&q->lock);
		marrow_emu_qp_destroy(q->emu);
		free(q->sq_wrid);
		free(q->sq_end);
		free(q->rq_wrid);
		free(q);
		REFUSE(ENOMEM, "ibv_create_qp: %d QPs exist (max_qp)", MODEL_MAX_QP);
		return NULL;
	}
	return &q->qp;
}

MODEL_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct model_qp *q = (struct model_qp *)qp;
	int rc = marrow_emu_qp_destroy(q->emu);

	if (rc) {
		REFUSE(EBUSY, "ibv_destroy_qp: %s", marrow_last_error());
		return EBUSY;
	}
	model_qp_unregister(q);
	model_cq_clean((struct model_cq *)qp->send_cq, qp->qp_num);
	if (qp->recv_cq != qp->send_cq)
		model_cq_clean((struct model_cq *)qp->recv_cq, qp->qp_num);
	pthread_mutex_destroy(&q->lock);
	pthread_mutex_destroy(&q->qp.mutex);
	pthread_cond_destroy(&q->qp.cond);
	free(q->sq_wrid);
	free(q->sq_end);
	free(q->rq_wrid);
	free(q);
	return 0;
}

/* The IB state table for RC (IBA 11.2.5.3, as the kernel's
 * ib_modify_qp_is_ok has it): required and optional attributes. */
struct qp_step {
	enum ibv_qp_state from, to;
	int req, opt;
};

#define RTR_REQ (IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | \
		 IBV_QP_MIN_RNR_TIMER)
#define RTS_REQ (IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)

static const struct qp_step steps[] = {
	{ IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ IBV_QPS_INIT, IBV_QPS_INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPS_INIT, IBV_QPS_RTR, RTR_REQ, IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ IBV_QPS_RTR, IBV_QPS_RTS, RTS_REQ,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPS_RTS, IBV_QPS_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER },
};

static const char *st(int s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s >= 0 && s <= 6 ? n[s] : "?";
}

static int emu_state_now(struct model_qp *q)
{
	int s = 0;

	marrow_emu_qp_state(q->emu, &s);
	return s == MARROW_QPS_ERR ? IBV_QPS_ERR : s;
}

/* Range checks of the attributes the mask names, against the caps. */
static int qp_check_values(struct model_ctx *mc, struct model_qp *q, const struct ibv_qp_attr *a, int mask)
{
	const uint32_t rd = mc->caps.max_rd_atomic;

	if ((mask & IBV_QP_PORT) && a->port_num != 1)
		return REFUSE(EINVAL, "port_num %u (the model has port 1)", a->port_num), -1;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
		return REFUSE(EINVAL, "pkey_index %u outside [0, 1)", a->pkey_index), -1;
	if ((mask & IBV_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~(unsigned)(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)))
		return REFUSE(EINVAL, "qp_access_flags 0x%x has unknown bits", a->qp_access_flags), -1;
	if ((mask & IBV_QP_PATH_MTU) && (a->path_mtu < IBV_MTU_256 || a->path_mtu > (enum ibv_mtu)mc->caps.active_mtu))
		return REFUSE(EINVAL, "path_mtu %d outside 1..%u (the port's active MTU)", a->path_mtu,
			      mc->caps.active_mtu), -1;
	if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > 0xffffff)
		return REFUSE(EINVAL, "dest_qp_num 0x%x exceeds 24 bits", a->dest_qp_num), -1;
	if ((mask & IBV_QP_RQ_PSN) && a->rq_psn > 0xffffff)
		return REFUSE(EINVAL, "rq_psn 0x%x exceeds 24 bits", a->rq_psn), -1;
	if ((mask & IBV_QP_SQ_PSN) && a->sq_psn > 0xffffff)
		return REFUSE(EINVAL, "sq_psn 0x%x exceeds 24 bits", a->sq_psn), -1;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > rd)
		return REFUSE(EINVAL, "max_dest_rd_atomic %u above the device's %u", a->max_dest_rd_atomic, rd), -1;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > rd)
		return REFUSE(EINVAL, "max_rd_atomic %u above the device's %u", a->max_rd_atomic, rd), -1;
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return REFUSE(EINVAL, "min_rnr_timer %u above 31", a->min_rnr_timer), -1;
	if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
		return REFUSE(EINVAL, "timeout %u above 31", a->timeout), -1;
	if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
		return REFUSE(EINVAL, "retry_cnt %u above 7", a->retry_cnt), -1;
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
		return REFUSE(EINVAL, "rnr_retry %u above 7", a->rnr_retry), -1;
	if (mask & IBV_QP_AV) {
		const struct ibv_ah_attr *ah = &a->ah_attr;

		if (ah->port_num != 1)
			return REFUSE(EINVAL, "ah_attr.port_num %u (the model has port 1)", ah->port_num), -1;
		if (mc->caps.roce && !ah->is_global)
			return REFUSE(EINVAL, "RoCE needs a GRH: ah_attr.is_global 0"), -1;
		if (ah->is_global) {
			if (ah->grh.sgid_index >= mc->caps.gid_tbl_len)
				return REFUSE(EINVAL, "sgid_index %u outside [0, %u)", ah->grh.sgid_index,
					      mc->caps.gid_tbl_len), -1;
			if (mc->gids[ah->grh.sgid_index].global.interface_id == 0 &&
			    mc->gids[ah->grh.sgid_index].global.subnet_prefix == 0)
				return REFUSE(EINVAL, "sgid_index %u is an unpopulated GID", ah->grh.sgid_index), -1;
		}
		if (!mc->caps.roce && !ah->is_global && ah->dlid == 0)
			return REFUSE(EINVAL, "InfiniBand without a GRH needs a DLID (ah_attr.dlid 0)"), -1;
		if (ah->sl > 15)
			return REFUSE(EINVAL, "ah_attr.sl %u above 15", ah->sl), -1;
	}
	(void)q;
	return 0;
}

/* The destination of an RTR: a QP of this process reached through this
 * port (IB: its LID or GRH; RoCE: one of the GIDs). */
static int qp_route(struct model_ctx *mc, const struct ibv_qp_attr *a)
{
	const struct ibv_ah_attr *ah = &a->ah_attr;

	if (ah->is_global) {
		for (uint32_t i = 0; i < mc->caps.gid_tbl_len; i++)
			if (memcmp(&mc->gids[i], &ah->grh.dgid, sizeof(ah->grh.dgid)) == 0)
				return 0;
		return -1;
	}
	return ah->dlid == mc->dev->lid ? 0 : -1;
}

static int emu_set_access(struct model_qp *q, uint32_t access)
{
	struct marrow_emu_device *dev = q->emu->pd->dev;

	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	q->emu->access = access & 0xfu;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
	return 0;
}

static int qp_apply(struct model_ctx *mc, struct model_qp *q, int cur, int to, const struct ibv_qp_attr *a,
		    int mask)
{
	int rc = MARROW_OK;

	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) {
		if (to == IBV_QPS_RESET) {
			rc = marrow_emu_qp_modify(q->emu, MARROW_QPS_RESET, 0);
			if (rc == MARROW_OK) {
				model_cq_clean((struct model_cq *)q->qp.send_cq, q->qp.qp_num);
				if (q->qp.recv_cq != q->qp.send_cq)
					model_cq_clean((struct model_cq *)q->qp.recv_cq, q->qp.qp_num);
				pthread_mutex_lock(&q->lock);
				q->sq_head = q->sq_tail = q->rq_head = q->rq_tail = 0;
				q->bf_off = 0;
				pthread_mutex_unlock(&q->lock);
			}
		} else {
			rc = marrow_emu_qp_modify(q->emu, MARROW_QPS_ERR, 0);
		}
		return rc ? REFUSE(EINVAL, "%s", marrow_last_error()), -1 : 0;
	}
	if (mask & IBV_QP_ACCESS_FLAGS)
		emu_set_access(q, a->qp_access_flags);
	if (cur == to)
		return 0;
	if (to == IBV_QPS_INIT)
		rc = marrow_emu_qp_modify(q->emu, MARROW_QPS_INIT, 0);
	else if (to == IBV_QPS_RTR) {
		if (qp_route(mc, a))
			return REFUSE(EINVAL, "RTR: destination %s not reachable from this model device (another "
				      "process needs the shared-memory wire)",
				      a->ah_attr.is_global ? "GID" : "LID"), -1;
		if (model_qp_lookup(a->dest_qp_num) == NULL && !model_devx_has_qpn(a->dest_qp_num))
			return REFUSE(EINVAL, "RTR: dest_qp_num 0x%x is no QP of this model device",
				      a->dest_qp_num), -1;
		rc = marrow_emu_qp_modify(q->emu, MARROW_QPS_RTR, a->dest_qp_num);
		if (rc == MARROW_OK)
			rc = marrow_emu_qp_set_timers(q->emu, 14, 7, 6, a->min_rnr_timer);
	} else if (to == IBV_QPS_RTS) {
		uint32_t rnr_timer = (mask & IBV_QP_MIN_RNR_TIMER) ? a->min_rnr_timer : q->attr.min_rnr_timer;

		rc = marrow_emu_qp_set_timers(q->emu, a->timeout, a->retry_cnt, a->rnr_retry, rnr_timer);
		if (rc == MARROW_OK)
			rc = marrow_emu_qp_modify(q->emu, MARROW_QPS_RTS, 0);
	}
	return rc ? REFUSE(EINVAL, "%s", marrow_last_error()), -1 : 0;
}

/* Keeps what the step set, for ibv_query_qp. */
static void qp_remember(struct model_qp *q, const struct ibv_qp_attr *a, int mask)
{
	struct ibv_qp_attr *k = &q->attr;

	if (mask & IBV_QP_PKEY_INDEX) k->pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT) k->port_num = a->port_num;
	if (mask & IBV_QP_ACCESS_FLAGS) k->qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_AV) k->ah_attr = a->ah_attr;
	if (mask & IBV_QP_PATH_MTU) k->path_mtu = a->path_mtu;
	if (mask & IBV_QP_DEST_QPN) k->dest_qp_num = a->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN) k->rq_psn = a->rq_psn;
	if (mask & IBV_QP_SQ_PSN) k->sq_psn = a->sq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) k->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC) k->max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER) k->min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT) k->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT) k->retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY) k->rnr_retry = a->rnr_retry;
}

MODEL_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	struct model_qp *q = (struct model_qp *)qp;
	struct model_ctx *mc = mctx(qp->context);
	int cur, to, req = 0, opt = 0, found = 0;

	if (a == NULL || !(mask & IBV_QP_STATE)) {
		REFUSE(EINVAL, "ibv_modify_qp: the model needs IBV_QP_STATE in the mask");
		return EINVAL;
	}
	cur = emu_state_now(q); /* an error CQE moves the QP to ERR behind verbs' back */
	if ((mask & IBV_QP_CUR_STATE) && (int)a->cur_qp_state != cur) {
		REFUSE(EINVAL, "ibv_modify_qp: cur_qp_state %s but the QP is in %s", st(a->cur_qp_state), st(cur));
		return EINVAL;
	}
	to = (int)a->qp_state;
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) {
		found = 1; /* any state -> RESET / ERR, no other attribute */
	} else {
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			if ((int)steps[i].from == cur && (int)steps[i].to == to) {
				req = steps[i].req;
				opt = steps[i].opt;
				found = 1;
			}
		}
	}
	if (!found) {
		REFUSE(EINVAL, "ibv_modify_qp(qpn 0x%x): %s -> %s is not a legal transition", qp->qp_num, st(cur),
		       st(to));
		return EINVAL;
	}
	if ((mask & req) != req || (mask & ~(req | opt | IBV_QP_STATE))) {
		REFUSE(EINVAL, "ibv_modify_qp(qpn 0x%x, %s -> %s): mask 0x%x, needs 0x%x, allows 0x%x more", qp->qp_num,
		       st(cur), st(to), mask, req, opt);
		return EINVAL;
	}
	if (qp_check_values(mc, q, a, mask)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", g_why);
		REFUSE(EINVAL, "ibv_modify_qp(qpn 0x%x, %s -> %s): %s", qp->qp_num, st(cur), st(to), why);
		return EINVAL;
	}
	if (qp_apply(mc, q, cur, to, a, mask)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", g_why);
		REFUSE(EINVAL, "ibv_modify_qp(qpn 0x%x, %s -> %s): %s", qp->qp_num, st(cur), st(to), why);
		return EINVAL;
	}
	qp_remember(q, a, mask);
	q->attr.qp_state = (enum ibv_qp_state)to;
	qp->state = (enum ibv_qp_state)to;
	return 0;
}

MODEL_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, struct ibv_qp_init_attr *ia)
{
	struct model_qp *q = (struct model_qp *)qp;

	*a = q->attr;
	a->qp_state = (enum ibv_qp_state)emu_state_now(q);
	a->cur_qp_state = a->qp_state;
	a->cap = q->cap;
	if (ia != NULL) {
		memset(ia, 0, sizeof(*ia));
		ia->qp_context = qp->qp_context;
		ia->send_cq = qp->send_cq;
		ia->recv_cq = qp->recv_cq;
		ia->cap = q->cap;
		ia->qp_type = IBV_QPT_RC;
		ia->sq_sig_all = q->sq_sig_all;
	}
	(void)mask;
	return 0;
}

/* ---- address handles (RoCE MAC resolution on the DevX path) -------------- */

MODEL_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct model_ctx *mc = mctx(pd->context);
	struct ibv_ah *ah;

	if (attr == NULL || attr->port_num != 1 || (mc->caps.roce && !attr->is_global)) {
		REFUSE(EINVAL, "ibv_create_ah: port %u or no GRH on RoCE", attr ? attr->port_num : 0);
		return NULL;
	}
	/* the ibv_ah, its attributes, then the mlx5 address vector init_obj hands out */
	ah = calloc(1, sizeof(*ah) + sizeof(struct ibv_ah_attr) + sizeof(struct mlx5_wqe_av));
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	memcpy(ah + 1, attr, sizeof(*attr));
	return ah;
}

MODEL_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

/* ---- mlx5dv_init_obj ------------------------------------------------------ */

/* The destination MAC of a RoCE GID: the modified EUI-64 of a link-local
 * address, else the model's own (one host). */
static void ah_mac(const struct ibv_ah_attr *attr, uint8_t mac[6])
{
	const uint8_t *g = attr->grh.dgid.raw;

	mac[0] = g[8] ^ 0x02;
	mac[1] = g[9];
	mac[2] = g[10];
	mac[3] = g[13];
	mac[4] = g[14];
	mac[5] = g[15];
}

MODEL_EXPORT int mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t type)
{
	if (type & ~(uint64_t)(MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ | MLX5DV_OBJ_PD | MLX5DV_OBJ_AH)) {
		REFUSE(EOPNOTSUPP, "mlx5dv_init_obj: object types 0x%llx beyond QP, CQ, PD, AH",
		       (unsigned long long)type);
		return EOPNOTSUPP;
	}
	if (type & MLX5DV_OBJ_QP) {
		struct model_qp *q = (struct model_qp *)obj->qp.in;
		struct mlx5dv_qp *o = obj->qp.out;

		memset(o, 0, sizeof(*o));
		o->dbrec = (__be32 *)q->view.dbrec;
		o->sq.buf = q->view.sq_buf;
		o->sq.wqe_cnt = q->view.sq_wqe_cnt;
		o->sq.stride = q->view.sq_stride;
		o->rq.buf = q->view.rq_buf;
		o->rq.wqe_cnt = q->view.rq_wqe_cnt;
		o->rq.stride = q->view.rq_stride;
		o->bf.reg = q->view.uar;
		o->bf.size = 256; /* one BlueFlame half; doorbells alternate halves */
	}
	if (type & MLX5DV_OBJ_CQ) {
		struct model_cq *c = (struct model_cq *)obj->cq.in;
		struct mlx5dv_cq *o = obj->cq.out;

		memset(o, 0, sizeof(*o));
		o->buf = c->view.buf;
		o->dbrec = (__be32 *)c->view.dbrec;
		o->cqe_cnt = c->view.cqe_cnt;
		o->cqe_size = c->view.cqe_size;
		o->cqn = c->view.cqn;
	}
	if (type & MLX5DV_OBJ_PD) {
		obj->pd.out->pdn = ((struct model_pd *)obj->pd.in)->pdn;
		obj->pd.out->comp_mask = 0;
	}
	if (type & MLX5DV_OBJ_AH) {
		const struct ibv_ah_attr *attr = (const struct ibv_ah_attr *)(obj->ah.in + 1);
		struct mlx5_wqe_av *av = (struct mlx5_wqe_av *)(attr + 1); /* lives in the ah, as libmlx5's */

		ah_mac(attr, av->rmac);
		obj->ah.out->av = av;
		obj->ah.out->comp_mask = 0;
	}
	return 0;
}
