/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The mlx5 model's verbs surface (docs/design/mlx5-model.md), driven the
 * way an rdma-core user drives libibverbs: the library is dlopened by path
 * and every call goes through dlsym, while ibv_post_send / ibv_poll_cq are
 * verbs.h's inlines dispatching through the context's ops table. Checks:
 * the device and port queries, the IB state table (bad transitions and
 * out-of-range attributes refused with EINVAL, the QP left as it was),
 * loopback and two-QP WRITEs (every byte compared), WRITE_IMM into a posted
 * receive, mlx5dv_init_obj's views, an error CQE from a bad rkey and the
 * recovery ERR -> RESET -> INIT -> RTR -> RTS, RoCE caps and a malformed
 * MARROW_MLX5MODEL. Exits 77 only when the model library was not built.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

static const char *(*why_fn)(void);

#define CHECK(c)								\
	do {									\
		if (!(c)) {							\
			fprintf(stderr, "%s:%d: CHECK failed: %s (model: %s)\n", __FILE__, __LINE__, #c, \
				why_fn ? why_fn() : "");			\
			exit(1);						\
		}								\
	} while (0)

static struct {
	struct ibv_device **(*get_device_list)(int *);
	void (*free_device_list)(struct ibv_device **);
	const char *(*get_device_name)(struct ibv_device *);
	struct ibv_context *(*open_device)(struct ibv_device *);
	int (*close_device)(struct ibv_context *);
	int (*query_device)(struct ibv_context *, struct ibv_device_attr *);
	int (*query_port)(struct ibv_context *, uint8_t, struct ibv_port_attr *);
	int (*query_gid)(struct ibv_context *, uint8_t, int, union ibv_gid *);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *);
	int (*dealloc_pd)(struct ibv_pd *);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *, void *, size_t, int);
	int (*dereg_mr)(struct ibv_mr *);
	struct ibv_cq *(*create_cq)(struct ibv_context *, int, void *, struct ibv_comp_channel *, int);
	int (*destroy_cq)(struct ibv_cq *);
	struct ibv_qp *(*create_qp)(struct ibv_pd *, struct ibv_qp_init_attr *);
	int (*destroy_qp)(struct ibv_qp *);
	int (*modify_qp)(struct ibv_qp *, struct ibv_qp_attr *, int);
	int (*query_qp)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *);
	int (*init_obj)(struct mlx5dv_obj *, uint64_t);
	bool (*is_mlx5)(struct ibv_device *);
} v;

static void load(void)
{
	const char *path = getenv("MARROW_MLX5MODEL_LIB");
	void *h;

#ifdef MARROW_MLX5MODEL_SO
	if (path == NULL)
		path = MARROW_MLX5MODEL_SO;
#endif
	if (path == NULL) {
		printf("verbs_test_mlx5model: SKIP (libmarrow_mlx5model.so was not built: no rdma-core headers)\n");
		exit(77);
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "cannot dlopen %s: %s\n", path, dlerror());
		exit(1); /* built but unloadable: a failure, not a skip */
	}
#define SYM(f, n) CHECK((*(void **)&v.f = dlsym(h, n)) != NULL)
	SYM(get_device_list, "ibv_get_device_list");
	SYM(free_device_list, "ibv_free_device_list");
	SYM(get_device_name, "ibv_get_device_name");
	SYM(open_device, "ibv_open_device");
	SYM(close_device, "ibv_close_device");
	SYM(query_device, "ibv_query_device");
	SYM(query_port, "ibv_query_port");
	SYM(query_gid, "ibv_query_gid");
	SYM(alloc_pd, "ibv_alloc_pd");
	SYM(dealloc_pd, "ibv_dealloc_pd");
	SYM(reg_mr, "ibv_reg_mr");
	SYM(dereg_mr, "ibv_dereg_mr");
	SYM(create_cq, "ibv_create_cq");
	SYM(destroy_cq, "ibv_destroy_cq");
	SYM(create_qp, "ibv_create_qp");
	SYM(destroy_qp, "ibv_destroy_qp");
	SYM(modify_qp, "ibv_modify_qp");
	SYM(query_qp, "ibv_query_qp");
	SYM(init_obj, "mlx5dv_init_obj");
	SYM(is_mlx5, "mlx5dv_is_supported");
	CHECK((*(void **)&why_fn = dlsym(h, "marrow_mlx5model_why")) != NULL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Polls until one completion arrives (5 s bound). */
static struct ibv_wc wait_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	uint64_t end = now_ns() + 5000000000ull;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		CHECK(now_ns() < end);
	CHECK(n == 1);
	return wc;
}

struct end {
	struct ibv_context *ctx;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int roce;
};

static struct ibv_context *open_model(void)
{
	int n = 0;
	struct ibv_device **list = v.get_device_list(&n);
	struct ibv_context *ctx;

	CHECK(list != NULL && n == 1);
	CHECK(strcmp(v.get_device_name(list[0]), "mlx5_model0") == 0);
	CHECK(v.is_mlx5(list[0]));
	ctx = v.open_device(list[0]);
	v.free_device_list(list);
	return ctx;
}

static int to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qp_access_flags = access };

	return v.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void rtr_attr(const struct end *e, uint32_t dest, struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = dest;
	a->rq_psn = 0;
	a->max_dest_rd_atomic = 4;
	a->min_rnr_timer = 12;
	a->ah_attr.port_num = 1;
	a->ah_attr.dlid = e->port.lid;
	if (e->roce) {
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid = e->gid;
		a->ah_attr.grh.sgid_index = 1;
		a->ah_attr.grh.hop_limit = 64;
	}
}

#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | \
		  IBV_QP_MAX_QP_RD_ATOMIC)

static void rts_attr(struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 4;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	CHECK(v.query_qp(qp, &a, IBV_QP_STATE, &ia) == 0);
	return (int)a.qp_state;
}

/* RESET -> INIT -> RTR -> RTS towards dest. */
static void connect_qp(const struct end *e, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a;

	CHECK(to_init(qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) == 0);
	rtr_attr(e, dest, &a);
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == 0);
	rts_attr(&a);
	CHECK(v.modify_qp(qp, &a, RTS_MASK) == 0);
	CHECK(qp->state == IBV_QPS_RTS && qp_state(qp) == IBV_QPS_RTS);
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq, uint32_t wr, uint32_t recv)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = wr;
	ia.cap.max_recv_wr = recv;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 64;
	return v.create_qp(pd, &ia);
}

static int post_write(struct ibv_qp *qp, uint64_t id, void *src, uint32_t len, uint32_t lkey, void *dst,
		      uint32_t rkey, int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = len, .lkey = lkey };
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = flags;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + 1);
}

/* The device, the port and the GID table of an InfiniBand model. */
static void queries(struct end *e)
{
	struct ibv_device_attr da;
	union ibv_gid g;

	CHECK(v.query_device(e->ctx, &da) == 0);
	CHECK(da.phys_port_cnt == 1 && da.vendor_id == 0x02c9 && da.max_qp_rd_atom == 16);
	CHECK(strstr(da.fw_ver, "mlx5-model") != NULL);
	memset(&e->port, 0, sizeof(e->port));
	CHECK(v.query_port(e->ctx, 1, &e->port) == 0);
	CHECK(e->port.state == IBV_PORT_ACTIVE && e->port.link_layer == IBV_LINK_LAYER_INFINIBAND);
	CHECK(e->port.lid != 0 && e->port.active_mtu == IBV_MTU_4096);
	CHECK(v.query_port(e->ctx, 2, &e->port) == EINVAL);
	CHECK(v.query_port(e->ctx, 1, &e->port) == 0);
	CHECK(v.query_gid(e->ctx, 1, 0, &e->gid) == 0);
	CHECK(e->gid.raw[0] == 0xfe && e->gid.raw[1] == 0x80);
	CHECK(v.query_gid(e->ctx, 1, e->port.gid_tbl_len, &g) != 0);
}

/* The state table: each refusal is EINVAL and leaves the QP where it was. */
static void state_table(struct end *e, struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	rtr_attr(e, qp->qp_num, &a);
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == EINVAL); /* RESET -> RTR */
	CHECK(strstr(why_fn(), "RESET -> RTR is not a legal transition") != NULL);
	CHECK(qp_state(qp) == IBV_QPS_RESET);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	CHECK(v.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT) == EINVAL); /* access, pkey missing */
	CHECK(qp_state(qp) == IBV_QPS_RESET);
	a.port_num = 2;
	CHECK(v.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == EINVAL);
	CHECK(strstr(why_fn(), "port_num 2") != NULL);
	CHECK(to_init(qp, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE) == 0);
	rtr_attr(e, qp->qp_num, &a);
	a.path_mtu = (enum ibv_mtu)6;
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == EINVAL);
	CHECK(strstr(why_fn(), "path_mtu 6") != NULL);
	rtr_attr(e, qp->qp_num, &a);
	a.max_dest_rd_atomic = 32;
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == EINVAL);
	CHECK(strstr(why_fn(), "max_dest_rd_atomic 32") != NULL);
	rtr_attr(e, qp->qp_num, &a);
	a.dest_qp_num = 0x1000000;
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == EINVAL);
	rtr_attr(e, qp->qp_num, &a);
	CHECK(v.modify_qp(qp, &a, RTR_MASK & ~IBV_QP_MIN_RNR_TIMER) == EINVAL);
	CHECK(qp_state(qp) == IBV_QPS_INIT);
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == 0);
	rts_attr(&a);
	a.retry_cnt = 8;
	CHECK(v.modify_qp(qp, &a, RTS_MASK) == EINVAL);
	CHECK(strstr(why_fn(), "retry_cnt 8") != NULL);
	rts_attr(&a);
	a.timeout = 32;
	CHECK(v.modify_qp(qp, &a, RTS_MASK) == EINVAL);
	rts_attr(&a);
	a.max_rd_atomic = 32;
	CHECK(v.modify_qp(qp, &a, RTS_MASK) == EINVAL);
	rts_attr(&a);
	a.rnr_retry = 8;
	CHECK(v.modify_qp(qp, &a, RTS_MASK) == EINVAL);
	rts_attr(&a);
	a.sq_psn = 0x1000000;
	CHECK(v.modify_qp(qp, &a, RTS_MASK) == EINVAL);
	CHECK(qp_state(qp) == IBV_QPS_RTR);
	rts_attr(&a);
	CHECK(v.modify_qp(qp, &a, RTS_MASK | IBV_QP_PATH_MTU) == EINVAL); /* not allowed at RTS */
	CHECK(v.modify_qp(qp, &a, RTS_MASK) == 0);
	CHECK(qp_state(qp) == IBV_QPS_RTS);
	CHECK(to_init(qp, 0) == EINVAL); /* RTS -> INIT */
	CHECK(qp_state(qp) == IBV_QPS_RTS);
}

/* mlx5dv_init_obj: what Marrow's own WQE and doorbell code reads. */
static void dv_views(struct ibv_qp *qp, struct ibv_cq *cq)
{
	struct mlx5dv_qp dqp;
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;

	memset(&o, 0, sizeof(o));
	o.qp.in = qp;
	o.qp.out = &dqp;
	o.cq.in = cq;
	o.cq.out = &dcq;
	CHECK(v.init_obj(&o, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ) == 0);
	CHECK(dqp.sq.stride == 64 && dqp.sq.wqe_cnt >= 64 && (dqp.sq.wqe_cnt & (dqp.sq.wqe_cnt - 1)) == 0);
	CHECK(dqp.sq.buf != NULL && dqp.dbrec != NULL && dqp.bf.reg != NULL && dqp.bf.size == 256);
	CHECK(dcq.cqe_size == 64 && dcq.cqe_cnt >= 64 && dcq.buf != NULL && dcq.dbrec != NULL);
	CHECK(v.init_obj(&o, MLX5DV_OBJ_SRQ) == EOPNOTSUPP);
}

/* Loopback and two QPs; every byte compared. */
static void traffic(struct end *e)
{
	enum { N = 300, MSG = 200, LEN = 1 << 20 };
	uint8_t *buf = aligned_alloc(4096, LEN);
	struct ibv_pd *pd = v.alloc_pd(e->ctx);
	struct ibv_mr *mr, *bad_mr;
	struct ibv_cq *cq = v.create_cq(e->ctx, 63, NULL, NULL, 0);
	struct ibv_cq *cq2 = v.create_cq(e->ctx, 63, NULL, NULL, 0);
	struct ibv_qp *qp, *a, *b;
	struct ibv_wc wc;
	int outstanding = 0;

	CHECK(buf && pd && cq && cq2);
	memset(buf, 0, LEN);
	CHECK(v.reg_mr(pd, buf, LEN, IBV_ACCESS_REMOTE_WRITE) == NULL && errno == EINVAL); /* needs LOCAL_WRITE */
	mr = v.reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr != NULL);
	qp = make_qp(pd, cq, 64, 0);
	CHECK(qp != NULL);
	state_table(e, qp);
	dv_views(qp, cq);
	/* loopback: 300 WRITEs, inline and gathered, every 10th signaled */
	fill(buf, LEN / 2, 1);
	for (int i = 0; i < N; i++) {
		int sig = i % 10 == 9;
		int rc = post_write(qp, (uint64_t)i, buf + (size_t)i * MSG, i % 2 ? 48 + i % 16 : MSG, mr->lkey,
				    buf + LEN / 2 + (size_t)i * MSG, mr->rkey,
				    (sig ? IBV_SEND_SIGNALED : 0) | (i % 2 ? IBV_SEND_INLINE : 0));

		CHECK(rc == 0);
		if (sig && ++outstanding >= 4) {
			wc = wait_wc(cq);
			CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_WRITE && wc.qp_num == qp->qp_num);
			CHECK(wc.wr_id % 10 == 9);
			outstanding--;
		}
	}
	while (outstanding-- > 0) {
		wc = wait_wc(cq);
		CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == (uint64_t)(N - 1 - 10 * outstanding));
	}
	for (int i = 0; i < N; i++) {
		uint32_t len = i % 2 ? 48 + i % 16 : MSG;

		CHECK(memcmp(buf + LEN / 2 + (size_t)i * MSG, buf + (size_t)i * MSG, len) == 0);
	}
	/* a SQ that is full refuses with ENOMEM (none signaled: nothing retires) */
	{
		int rc = 0, posted = 0;

		for (; posted < 4096 && rc == 0; posted++)
			rc = post_write(qp, 9999, buf, 8, mr->lkey, buf + LEN / 2, mr->rkey, 0);
		CHECK(rc == ENOMEM);
	}
	/* error CQE: a bad rkey; the QP goes to ERR; recovery brings it back */
	{
		struct ibv_qp_attr at;
		int rc;

		CHECK(v.destroy_qp(qp) == 0);
		qp = make_qp(pd, cq, 64, 0);
		CHECK(qp != NULL);
		connect_qp(e, qp, qp->qp_num);
		CHECK(post_write(qp, 1, buf, 64, mr->lkey, buf + LEN / 2, mr->rkey ^ 0x5500, IBV_SEND_SIGNALED) == 0);
		wc = wait_wc(cq);
		CHECK(wc.status == IBV_WC_REM_ACCESS_ERR && wc.wr_id == 1);
		CHECK(qp_state(qp) == IBV_QPS_ERR);
		/* ERR -> RTS is not a transition; ERR -> RESET -> INIT -> RTR -> RTS is */
		rts_attr(&at);
		CHECK(v.modify_qp(qp, &at, RTS_MASK) == EINVAL);
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_RESET;
		CHECK(v.modify_qp(qp, &at, IBV_QP_STATE) == 0);
		connect_qp(e, qp, qp->qp_num);
		memset(buf + LEN / 2, 0, 4096);
		fill(buf, 4096, 77);
		for (int i = 0; i < 8; i++) {
			rc = post_write(qp, 100 + i, buf + 512 * i, 512, mr->lkey, buf + LEN / 2 + 512 * i, mr->rkey,
					i == 7 ? IBV_SEND_SIGNALED : 0);
			CHECK(rc == 0);
		}
		wc = wait_wc(cq);
		CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 107);
		CHECK(memcmp(buf + LEN / 2, buf, 4096) == 0);
	}
	/* two QPs connected to each other; B's MR is a second registration */
	a = make_qp(pd, cq, 16, 0);
	b = make_qp(pd, cq2, 16, 4);
	CHECK(a && b);
	bad_mr = v.reg_mr(pd, buf + LEN / 4, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(bad_mr != NULL);
	connect_qp(e, a, b->qp_num);
	connect_qp(e, b, a->qp_num);
	fill(buf, 4096, 5);
	CHECK(post_write(a, 42, buf, 4096, mr->lkey, buf + LEN / 4, bad_mr->rkey, IBV_SEND_SIGNALED) == 0);
	wc = wait_wc(cq);
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 42 && wc.qp_num == a->qp_num);
	CHECK(memcmp(buf + LEN / 4, buf, 4096) == 0);
	/* WRITE_IMM into B's posted receive */
	{
		struct ibv_recv_wr rwr, *rbad;
		struct ibv_send_wr swr, *sbad;
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 256, .lkey = mr->lkey };

		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 7;
		CHECK(ibv_post_recv(b, &rwr, &rbad) == 0);
		memset(&swr, 0, sizeof(swr));
		swr.wr_id = 43;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		swr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		swr.send_flags = IBV_SEND_SIGNALED;
		swr.imm_data = htobe32(0xabcd1234);
		swr.wr.rdma.remote_addr = (uintptr_t)(buf + LEN / 4 + 1024);
		swr.wr.rdma.rkey = bad_mr->rkey;
		CHECK(ibv_post_send(a, &swr, &sbad) == 0);
		wc = wait_wc(cq);
		CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 43);
		wc = wait_wc(cq2);
		CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.wr_id == 7);
		CHECK((wc.wc_flags & IBV_WC_WITH_IMM) && be32toh(wc.imm_data) == 0xabcd1234 && wc.qp_num == b->qp_num);
	}
	/* a destination QPN that no QP has is refused at RTR */
	{
		struct ibv_qp *c = make_qp(pd, cq, 16, 0);
		struct ibv_qp_attr at;

		CHECK(c != NULL && to_init(c, 0) == 0);
		rtr_attr(e, 0xfffff0, &at);
		CHECK(v.modify_qp(c, &at, RTR_MASK) == EINVAL);
		CHECK(strstr(why_fn(), "dest_qp_num 0xfffff0") != NULL);
		CHECK(v.destroy_qp(c) == 0);
	}
	CHECK(v.dealloc_pd(pd) == EBUSY); /* objects remain */
	CHECK(v.destroy_qp(a) == 0 && v.destroy_qp(b) == 0 && v.destroy_qp(qp) == 0);
	CHECK(v.dereg_mr(bad_mr) == 0 && v.dereg_mr(mr) == 0);
	CHECK(v.destroy_cq(cq) == 0 && v.destroy_cq(cq2) == 0);
	CHECK(v.dealloc_pd(pd) == 0);
	free(buf);
}

/* RoCE caps: Ethernet port, no LID, a GRH required; a bad spec refused. */
static void roce(void)
{
	struct end e;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_attr a;

	setenv("MARROW_MLX5MODEL", "link=roce,max_rd_atomic=8", 1);
	memset(&e, 0, sizeof(e));
	e.ctx = open_model();
	CHECK(e.ctx != NULL);
	e.roce = 1;
	CHECK(v.query_port(e.ctx, 1, &e.port) == 0);
	CHECK(e.port.link_layer == IBV_LINK_LAYER_ETHERNET && e.port.lid == 0);
	CHECK(v.query_gid(e.ctx, 1, 1, &e.gid) == 0 && e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff);
	pd = v.alloc_pd(e.ctx);
	cq = v.create_cq(e.ctx, 15, NULL, NULL, 0);
	qp = make_qp(pd, cq, 8, 0);
	CHECK(pd && cq && qp);
	CHECK(to_init(qp, IBV_ACCESS_LOCAL_WRITE) == 0);
	rtr_attr(&e, qp->qp_num, &a);
	a.ah_attr.is_global = 0;
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == EINVAL);
	CHECK(strstr(why_fn(), "RoCE needs a GRH") != NULL);
	rtr_attr(&e, qp->qp_num, &a);
	a.max_dest_rd_atomic = 16; /* above this device's 8 */
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == EINVAL);
	rtr_attr(&e, qp->qp_num, &a);
	a.ah_attr.grh.sgid_index = 3; /* unpopulated */
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == EINVAL);
	rtr_attr(&e, qp->qp_num, &a);
	CHECK(v.modify_qp(qp, &a, RTR_MASK) == 0);
	CHECK(v.destroy_qp(qp) == 0 && v.destroy_cq(cq) == 0 && v.dealloc_pd(pd) == 0);
	CHECK(v.close_device(e.ctx) == 0);
	setenv("MARROW_MLX5MODEL", "link=token-ring", 1);
	CHECK(open_model() == NULL && errno == EINVAL);
	CHECK(strstr(why_fn(), "link=token-ring") != NULL);
	unsetenv("MARROW_MLX5MODEL");
}

int main(void)
{
	struct end e;

	load();
	unsetenv("MARROW_MLX5MODEL");
	memset(&e, 0, sizeof(e));
	e.ctx = open_model();
	CHECK(e.ctx != NULL);
	queries(&e);
	traffic(&e);
	CHECK(v.close_device(e.ctx) == 0);
	roce();
	printf("verbs_test_mlx5model: OK\n");
	return 0;
}
