/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Control path: argument validation (EINVAL with a message), destroy order
 * (EBUSY with a message), the QP state machine, key and number formats,
 * page alignment of everything a GPU may map, the banner, and the ABI
 * layout table of the built libmarrow_emu.so.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <stddef.h>
#include <unistd.h>

#include "emu_test_util.h"

#define ALIGNED(p) ((((uintptr_t)(p)) & 4095) == 0)

static void device_args(void)
{
	struct marrow_emu_device_attr a = { .size = sizeof(a), .engine_threads = 1, .engine_cpu = -1,
					    .quiet = 1 };
	struct marrow_emu_device *dev = NULL;

	FAILS(MARROW_EINVAL, marrow_emu_device_open(NULL, &dev));
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, NULL));
	a.size = 4;
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, &dev));
	a.size = sizeof(a);
	a.poll_mode = 7;
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, &dev));
	a.poll_mode = 0;
	a.engine_threads = 0;
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, &dev));
	a.engine_threads = 1000;
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, &dev));
	a.engine_threads = 1;
	a.comp_mask = 1;
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, &dev));
	a.comp_mask = 0;
	a.idle_sleep_max_ns = 2000000000u;
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, &dev));
	a.idle_sleep_max_ns = 0;
	a.engine_cpu = -5;
	FAILS(MARROW_EINVAL, marrow_emu_device_open(&a, &dev));
	CHECK(dev == NULL, "device handed out on failure");
	FAILS(MARROW_EINVAL, marrow_emu_device_close(NULL));
}

/* The banner: exactly one line on stderr unless quiet. */
static void banner(void)
{
	struct marrow_emu_device_attr a = { .size = sizeof(a), .poll_mode = MARROW_EMU_POLL_HOT,
					    .engine_threads = 2, .engine_cpu = -1 };
	struct marrow_emu_device *dev;
	char path[] = "/tmp/emu_banner_XXXXXX";
	char buf[512] = { 0 };
	int fd = mkstemp(path), saved = dup(2);
	int lines = 0;

	REQUIRE(fd >= 0 && saved >= 0, "temp file");
	fflush(stderr);
	dup2(fd, 2);
	OK(marrow_emu_device_open(&a, &dev));
	OK(marrow_emu_device_close(dev));
	a.quiet = 1;
	OK(marrow_emu_device_open(&a, &dev));
	OK(marrow_emu_device_close(dev));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	unlink(path);
	for (ssize_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	CHECK(lines == 1, "banner lines: %d (%s)", lines, buf);
	CHECK(strstr(buf, "software emulator") && strstr(buf, "no hardware") &&
	      strstr(buf, "threads=2") && strstr(buf, "mode=hot"), "banner: %s", buf);
	printf("  banner: %s", buf);
}

/* Every key of the table exported by the shared library. */
static void abi_table(void)
{
	char exe[4096], so[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	REQUIRE(n > 0, "readlink /proc/self/exe");
	exe[n] = 0;
	snprintf(so, sizeof(so), "%s/libmarrow_emu.so", dirname(exe));
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);

	REQUIRE(h != NULL, "dlopen %s: %s (build the marrow_emu target)", so, dlerror());
	typedef int (*query_fn)(const char *, int64_t *);
	query_fn query = (query_fn)dlsym(h, "marrow_emu_abi_query");
	int (*noop)(void) = (int (*)(void))dlsym(h, "marrow_emu_noop");

	REQUIRE(query && noop, "symbols missing in %s", so);
	CHECK(noop() == 0, "marrow_emu_noop");
	struct {
		const char *key;
		int64_t v;
	} want[] = {
#define S(t) { "sizeof:" #t, (int64_t)sizeof(struct t) }
#define O(t, f) { "offsetof:" #t "." #f, (int64_t)offsetof(struct t, f) }
		S(marrow_emu_device_attr), O(marrow_emu_device_attr, size),
		O(marrow_emu_device_attr, comp_mask), O(marrow_emu_device_attr, poll_mode),
		O(marrow_emu_device_attr, engine_threads), O(marrow_emu_device_attr, idle_sleep_max_ns),
		O(marrow_emu_device_attr, sweep_every), O(marrow_emu_device_attr, engine_cpu),
		O(marrow_emu_device_attr, quiet),
		S(marrow_emu_cq_attr), O(marrow_emu_cq_attr, size), O(marrow_emu_cq_attr, comp_mask),
		O(marrow_emu_cq_attr, log_cqe_cnt), O(marrow_emu_cq_attr, flags),
		S(marrow_cq_view), O(marrow_cq_view, size), O(marrow_cq_view, comp_mask),
		O(marrow_cq_view, cqn), O(marrow_cq_view, cqe_cnt), O(marrow_cq_view, cqe_size),
		O(marrow_cq_view, flags), O(marrow_cq_view, buf), O(marrow_cq_view, dbrec),
		S(marrow_emu_qp_attr), O(marrow_emu_qp_attr, size), O(marrow_emu_qp_attr, comp_mask),
		O(marrow_emu_qp_attr, send_cq), O(marrow_emu_qp_attr, recv_cq),
		O(marrow_emu_qp_attr, log_sq_wqebb_cnt), O(marrow_emu_qp_attr, log_rq_wqe_cnt),
		O(marrow_emu_qp_attr, max_rq_sge), O(marrow_emu_qp_attr, max_inline_data),
		O(marrow_emu_qp_attr, access), O(marrow_emu_qp_attr, reserved),
		S(marrow_qp_view), O(marrow_qp_view, size), O(marrow_qp_view, comp_mask),
		O(marrow_qp_view, qpn), O(marrow_qp_view, sq_wqe_cnt), O(marrow_qp_view, sq_stride),
		O(marrow_qp_view, rq_wqe_cnt), O(marrow_qp_view, rq_stride),
		O(marrow_qp_view, max_inline_data), O(marrow_qp_view, sq_buf), O(marrow_qp_view, rq_buf),
		O(marrow_qp_view, dbrec), O(marrow_qp_view, uar), O(marrow_qp_view, uar_size),
		S(marrow_emu_bench_result), O(marrow_emu_bench_result, size),
		O(marrow_emu_bench_result, comp_mask), O(marrow_emu_bench_result, messages),
		O(marrow_emu_bench_result, doorbells), O(marrow_emu_bench_result, elapsed_ns),
		O(marrow_emu_bench_result, cqes),
#undef S
#undef O
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int64_t v = -1;
		int rc = query(want[i].key, &v);

		CHECK(rc == 0 && v == want[i].v, "%s: rc %d value %lld, expected %lld", want[i].key, rc,
		      (long long)v, (long long)want[i].v);
	}
	int64_t v;

	CHECK(query("sizeof:no_such_struct", &v) == MARROW_ENOENT, "unknown key accepted");
	printf("  ABI table: %zu keys match\n", sizeof(want) / sizeof(want[0]));
	dlclose(h);
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 3);
	struct marrow_emu_pd *pd, *pd2;
	struct marrow_emu_mr *mr, *mr2;
	struct marrow_emu_cq *cq;
	struct marrow_cq_view cv;
	struct marrow_emu_cq_attr ca = { .size = sizeof(ca), .log_cqe_cnt = 4 };
	struct marrow_emu_qp_attr qa;
	struct marrow_emu_qp *qp, *qp2;
	struct marrow_qp_view qv, qv2;
	uint8_t *buf = t_alloc(8192, 0);
	uint32_t lkey, rkey, lkey2;
	int st;

	device_args();
	banner();
	abi_table();
	CHECK(marrow_emu_noop() == 0, "noop");

	/* ---- PD / MR ---- */
	FAILS(MARROW_EINVAL, marrow_emu_pd_alloc(NULL, &pd));
	FAILS(MARROW_EINVAL, marrow_emu_pd_alloc(dev, NULL));
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_pd_alloc(dev, &pd2));
	FAILS(MARROW_EINVAL, marrow_emu_mr_reg(pd, NULL, 64, 0, &mr, &lkey, &rkey));
	FAILS(MARROW_EINVAL, marrow_emu_mr_reg(pd, buf, 0, 0, &mr, &lkey, &rkey));
	FAILS(MARROW_EINVAL,
	      marrow_emu_mr_reg(pd, buf, 64, MARROW_ACCESS_REMOTE_WRITE, &mr, &lkey, &rkey));
	FAILS(MARROW_EINVAL, marrow_emu_mr_reg(pd, buf, 64, 0x40, &mr, &lkey, &rkey));
	FAILS(MARROW_EINVAL, marrow_emu_mr_reg(pd, buf, UINT64_MAX, 0, &mr, &lkey, &rkey));
	FAILS(MARROW_EINVAL, marrow_emu_mr_reg(NULL, buf, 64, 0, &mr, &lkey, &rkey));
	FAILS(MARROW_EINVAL, marrow_emu_mr_reg(pd, buf, 64, 0, NULL, &lkey, &rkey));
	OK(marrow_emu_mr_reg(pd, buf, 8192, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mr,
			     &lkey, &rkey));
	CHECK(lkey == rkey, "lkey 0x%x != rkey 0x%x", lkey, rkey);
	CHECK((lkey >> 8) != 0 && (lkey & 0xff) != 0 && lkey != MX_INVALID_LKEY, "key 0x%x format", lkey);
	/* Re-registering reuses the slot with a new variant: stale keys differ. */
	OK(marrow_emu_mr_dereg(mr));
	FAILS(MARROW_EINVAL, marrow_emu_mr_dereg(NULL));
	OK(marrow_emu_mr_reg(pd, buf, 8192, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mr,
			     &lkey2, NULL));
	CHECK(lkey2 != lkey, "stale key 0x%x equals the new one", lkey);
	/* Many registrations grow the table; every key stays unique. */
	{
		struct marrow_emu_mr *many[600];
		uint32_t keys[600];
		int dup = 0;

		for (int i = 0; i < 600; i++)
			OK(marrow_emu_mr_reg(pd2, buf + i, 16, 0, &many[i], &keys[i], NULL));
		for (int i = 0; i < 600 && !dup; i++)
			for (int j = 0; j < i; j++)
				dup |= keys[i] == keys[j] || keys[i] == lkey2;
		CHECK(!dup, "duplicate MR keys");
		for (int i = 0; i < 600; i++)
			OK(marrow_emu_mr_dereg(many[i]));
	}
	OK(marrow_emu_mr_reg(pd2, buf, 64, 0, &mr2, NULL, NULL));

	/* ---- CQ ---- */
	FAILS(MARROW_EINVAL, marrow_emu_cq_create(NULL, &ca, &cq, &cv));
	FAILS(MARROW_EINVAL, marrow_emu_cq_create(dev, NULL, &cq, &cv));
	FAILS(MARROW_EINVAL, marrow_emu_cq_create(dev, &ca, &cq, NULL));
	ca.log_cqe_cnt = 17;
	FAILS(MARROW_EINVAL, marrow_emu_cq_create(dev, &ca, &cq, &cv));
	ca.log_cqe_cnt = 4;
	ca.flags = 8;
	FAILS(MARROW_EINVAL, marrow_emu_cq_create(dev, &ca, &cq, &cv));
	ca.flags = 0;
	ca.size = 8;
	FAILS(MARROW_EINVAL, marrow_emu_cq_create(dev, &ca, &cq, &cv));
	ca.size = sizeof(ca);
	OK(marrow_emu_cq_create(dev, &ca, &cq, &cv));
	CHECK(cv.size == sizeof(cv) && cv.cqe_cnt == 16 && cv.cqe_size == 64, "CQ view");
	CHECK(cv.cqn >= 0x100 && cv.cqn <= 0xffffff, "CQN 0x%x", cv.cqn);
	CHECK(ALIGNED(cv.buf) && ALIGNED(cv.dbrec), "CQ memory not page aligned");
	for (uint32_t i = 0; i < 16; i++)
		CHECK(((uint8_t *)cv.buf)[i * 64 + 63] == 0xf0, "CQE %u op_own not 0xF0", i);

	/* ---- QP ---- */
	memset(&qa, 0, sizeof(qa));
	qa.size = sizeof(qa);
	qa.send_cq = cq;
	qa.log_sq_wqebb_cnt = 6;
	qa.max_inline_data = 64;
	qa.access = MARROW_ACCESS_REMOTE_WRITE;
#define QP_BAD(field, value)                                               \
	do {                                                               \
		struct marrow_emu_qp_attr b = qa;                          \
		b.field = value;                                           \
		FAILS(MARROW_EINVAL, marrow_emu_qp_create(pd, &b, &qp, &qv)); \
	} while (0)
	QP_BAD(size, 12);
	QP_BAD(comp_mask, 2);
	QP_BAD(send_cq, NULL);
	QP_BAD(send_cq, (struct marrow_emu_cq *)buf);
	QP_BAD(log_sq_wqebb_cnt, 0);
	QP_BAD(log_sq_wqebb_cnt, 16);
	QP_BAD(log_rq_wqe_cnt, 16);
	QP_BAD(log_rq_wqe_cnt, 3);                 /* RQ without recv_cq */
	QP_BAD(max_inline_data, 2000);
	QP_BAD(access, 0x100);
	QP_BAD(reserved, 1);
	{
		struct marrow_emu_qp_attr b = qa;

		b.log_sq_wqebb_cnt = 1;
		b.max_inline_data = 900;   /* needs 15 WQEBBs; the SQ has 2 */
		FAILS(MARROW_EINVAL, marrow_emu_qp_create(pd, &b, &qp, &qv));
		b = qa;
		b.log_rq_wqe_cnt = 2;
		b.recv_cq = cq;
		b.max_rq_sge = 0;
		FAILS(MARROW_EINVAL, marrow_emu_qp_create(pd, &b, &qp, &qv));
	}
	FAILS(MARROW_EINVAL, marrow_emu_qp_create(NULL, &qa, &qp, &qv));
	FAILS(MARROW_EINVAL, marrow_emu_qp_create(pd, NULL, &qp, &qv));
	FAILS(MARROW_EINVAL, marrow_emu_qp_create(pd, &qa, &qp, NULL));
	qa.max_inline_data = 973;       /* ds 64: more than 6 bits */
	qa.log_sq_wqebb_cnt = 4;
	FAILS(MARROW_EINVAL, marrow_emu_qp_create(pd, &qa, &qp2, &qv2));
	qa.max_inline_data = 972;       /* ds 63, 16 WQEBBs: the largest */
	OK(marrow_emu_qp_create(pd, &qa, &qp2, &qv2));
	OK(marrow_emu_qp_destroy(qp2));
	qa.max_inline_data = 64;
	qa.log_sq_wqebb_cnt = 6;
	qa.log_rq_wqe_cnt = 3;
	qa.recv_cq = cq;
	qa.max_rq_sge = 3;
	OK(marrow_emu_qp_create(pd, &qa, &qp, &qv));
	CHECK(qv.size == sizeof(qv) && qv.qpn >= 0x100 && qv.qpn <= 0xffffff, "QPN 0x%x", qv.qpn);
	CHECK(qv.sq_wqe_cnt == 64 && qv.sq_stride == 64 && qv.rq_wqe_cnt == 8 && qv.rq_stride == 64 &&
	      qv.max_inline_data == 64 && qv.uar_size == 4096, "QP view fields");
	CHECK(ALIGNED(qv.sq_buf) && ALIGNED(qv.rq_buf) && ALIGNED(qv.dbrec) && ALIGNED(qv.uar),
	      "QP memory not page aligned");
	CHECK(qv.dbrec[0] == 0 && qv.dbrec[1] == 0, "dbrec not zero");
	qa.log_rq_wqe_cnt = 0;
	qa.recv_cq = NULL;
	OK(marrow_emu_qp_create(pd, &qa, &qp2, &qv2));
	CHECK(qv2.qpn != qv.qpn && qv2.rq_buf == NULL && qv2.rq_wqe_cnt == 0, "second QP view");

	/* ---- state machine ---- */
	OK(marrow_emu_qp_state(qp, &st));
	CHECK(st == MARROW_QPS_RESET, "initial state %d", st);
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_RTS, 0));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_RTR, qv.qpn));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, 5, 0));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(NULL, MARROW_QPS_INIT, 0));
	OK(marrow_emu_qp_state(qp, &st));
	CHECK(st == MARROW_QPS_RESET, "state changed by a failed modify: %d", st);
	OK(marrow_emu_qp_modify(qp, MARROW_QPS_INIT, 0));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_INIT, 0));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_RTS, 0));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_RTR, 0xabcdef));
	CHECK(strstr(marrow_last_error(), "peer") != NULL, "RTR message: %s", marrow_last_error());
	OK(marrow_emu_qp_state(qp, &st));
	CHECK(st == MARROW_QPS_INIT, "state after failed RTR: %d", st);
	OK(marrow_emu_qp_modify(qp, MARROW_QPS_RTR, qv2.qpn));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_RTR, qv2.qpn));
	OK(marrow_emu_qp_modify(qp, MARROW_QPS_RTS, 0));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_INIT, 0));
	OK(marrow_emu_qp_modify(qp, MARROW_QPS_ERR, 0));
	OK(marrow_emu_qp_modify(qp, MARROW_QPS_ERR, 0));
	FAILS(MARROW_EINVAL, marrow_emu_qp_modify(qp, MARROW_QPS_RTS, 0));
	OK(marrow_emu_qp_modify(qp, MARROW_QPS_RESET, 0));
	OK(marrow_emu_qp_state(qp, &st));
	CHECK(st == MARROW_QPS_RESET, "state after RESET: %d", st);
	FAILS(MARROW_EINVAL, marrow_emu_qp_state(qp, NULL));

	/* ---- destroy order ---- */
	FAILS(MARROW_EBUSY, marrow_emu_cq_destroy(cq));
	FAILS(MARROW_EBUSY, marrow_emu_pd_free(pd));
	FAILS(MARROW_EBUSY, marrow_emu_pd_free(pd2));   /* holds an MR */
	FAILS(MARROW_EBUSY, marrow_emu_device_close(dev));
	OK(marrow_emu_qp_destroy(qp));
	FAILS(MARROW_EINVAL, marrow_emu_qp_destroy(NULL));
	FAILS(MARROW_EBUSY, marrow_emu_cq_destroy(cq));   /* still used by qp2 */
	OK(marrow_emu_qp_destroy(qp2));
	FAILS(MARROW_EBUSY, marrow_emu_pd_free(pd));      /* MR left */
	FAILS(MARROW_EBUSY, marrow_emu_device_close(dev));
	OK(marrow_emu_cq_destroy(cq));
	OK(marrow_emu_mr_dereg(mr));
	OK(marrow_emu_mr_dereg(mr2));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_pd_free(pd2));
	OK(marrow_emu_device_close(dev));
	free(buf);
	return t_finish("test_softnic_control");
}
