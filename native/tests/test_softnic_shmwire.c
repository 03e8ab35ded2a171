/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The shared-memory wire between two processes (docs/design/two-process.md),
 * with a forked responder:
 *  - inline and gathered RDMA WRITEs land in the responder's exported MR;
 *    a WRITE_IMM consumes its receive WQE and gives it a RESP_WR_IMM CQE
 *    with the immediate and the byte count;
 *  - a WRITE outside the MR is REMOTE_ACCESS (0xE5) and moves the
 *    responder's QP to ERR as well;
 *  - nothing lands in an MR after marrow_emu_wire_unexport_mr returned
 *    (REMOTE_ACCESS 0xE4 at the requester);
 *  - a responder killed with SIGKILL ends the requester's WRITE in
 *    TRANSPORT_RETRY_EXC after the QP's (retry_cnt + 1) ack timeouts;
 *  - a segment of another layout version, an unknown name and a malformed
 *    name are refused at attach; an MR outside the wire's heap cannot be
 *    exported; the heap does not hand out more than it has.
 */
#include <signal.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_test_util.h"
#include "marrow/marrow_shmwire.h"

struct hello {
	char name[MARROW_EMU_WIRE_NAME_MAX];
	uint32_t qpn[3];
	uint32_t rkey_a, rkey_u;
	uint64_t addr_a, addr_u, len_a, len_u;
};

enum { LEN_A = 64 * 1024, LEN_U = 4096, IMM = 0x1234 };

static void put(int fd, const void *p, size_t n)
{
	REQUIRE(write(fd, p, n) == (ssize_t)n, "pipe write");
}

static void get(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);

		REQUIRE(r > 0, "pipe read: the other process is gone");
		got += (size_t)r;
	}
}

static uint8_t pattern(uint32_t i, uint32_t seed)
{
	return (uint8_t)(i * 7u + seed);
}

/* ---- responder (child) ------------------------------------------------------ */

static int responder(int in, int out)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_wire *w;
	struct marrow_emu_mr *mra, *mru;
	struct t_cq cq, rcq;
	struct t_qp qb[3];
	struct hello h;
	uint8_t *a, *u;
	char cmd;

	memset(&h, 0, sizeof(h));
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_wire_create(dev, 1 << 20, &w));
	OK(marrow_emu_wire_name(w, h.name, sizeof(h.name)));
	OK(marrow_emu_wire_alloc(w, LEN_A, (void **)&a));
	OK(marrow_emu_wire_alloc(w, LEN_U, (void **)&u));
	OK(marrow_emu_mr_reg(pd, a, LEN_A, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mra, &h.rkey_a, &h.rkey_a));
	OK(marrow_emu_mr_reg(pd, u, LEN_U, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mru, &h.rkey_u, &h.rkey_u));
	OK(marrow_emu_wire_export_mr(w, mra));
	OK(marrow_emu_wire_export_mr(w, mru));
	t_cq_create(dev, 6, 0, &cq);
	t_cq_create(dev, 6, 0, &rcq);
	for (int i = 0; i < 3; i++) {
		t_qp_create_ex(pd, &cq, &rcq, 4, 3, 64, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &qb[i]);
		t_connect(&qb[i], qb[i].v.qpn);   /* its own sends are not used here */
		OK(marrow_emu_wire_export_qp(w, qb[i].qp));
		h.qpn[i] = qb[i].v.qpn;
	}
	t_post_recv(&qb[0], 4);
	h.addr_a = (uint64_t)(uintptr_t)a;
	h.addr_u = (uint64_t)(uintptr_t)u;
	h.len_a = LEN_A;
	h.len_u = LEN_U;
	put(out, &h, sizeof(h));
	for (;;) {
		char ok = 'y';

		get(in, &cmd, 1);
		if (cmd == 'C') {   /* the three WRITEs of step 1 */
			uint8_t cqe[64];

			for (uint32_t i = 0; i < 24; i++)
				ok = a[i] == pattern(i, 1) ? ok : 'n';
			for (uint32_t i = 0; i < 3000; i++)
				ok = a[4096 + i] == pattern(i, 2) ? ok : 'n';
			for (uint32_t i = 0; i < 16; i++)
				ok = a[8192 + i] == pattern(i, 3) ? ok : 'n';
			if (!t_poll(&rcq, cqe, 2000000000ull) || mx_cqe_opcode(cqe) != MX_CQE_RESP_WR_IMM ||
			    mx_cqe_qpn(cqe) != qb[0].v.qpn || mx_cqe_byte_cnt(cqe) != 16)
				ok = 'i';
			else if (mx_be32toh(mx_cqe_imm_be(cqe)) != IMM)
				ok = 'm';
		} else if (cmd == 'E') {   /* qb[0] went to ERR (class C) */
			uint64_t t0 = t_now_ns();

			while (t_qp_state(&qb[0]) != MARROW_QPS_ERR && t_now_ns() - t0 < 2000000000ull)
				t_sleep_us(1000);
			ok = t_qp_state(&qb[0]) == MARROW_QPS_ERR ? 'y' : 'n';
			ok = a[LEN_A - 8] == 0 ? ok : 'w';   /* the failing WRITE placed nothing */
		} else if (cmd == 'U') {
			OK(marrow_emu_wire_unexport_mr(w, mru));
		} else if (cmd == 'V') {
			for (uint32_t i = 0; i < LEN_U; i++)
				ok = u[i] == 0 ? ok : 'n';
		} else if (cmd == 'Q') {
			break;
		}
		put(out, &ok, 1);
	}
	for (int i = 0; i < 3; i++) {
		OK(marrow_emu_wire_unexport_qp(w, qb[i].qp));
		OK(marrow_emu_qp_destroy(qb[i].qp));
	}
	OK(marrow_emu_wire_unexport_mr(w, mra));
	OK(marrow_emu_mr_dereg(mra));
	OK(marrow_emu_mr_dereg(mru));
	OK(marrow_emu_wire_close(w));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_cq_destroy(rcq.cq));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	return 0;
}

/* ---- requester (parent) ----------------------------------------------------- */

static char ask(int to, int from, char cmd)
{
	char r;

	put(to, &cmd, 1);
	get(from, &r, 1);
	return r;
}

static void connect_wire(struct t_qp *q, struct marrow_emu_wire_peer *p, uint32_t qpn)
{
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_INIT, 0));
	OK(marrow_emu_qp_connect_wire(q->qp, p, qpn));
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_RTS, 0));
}

static void refused_attach(struct marrow_emu_device *dev, struct marrow_emu_mr *outside)
{
	struct marrow_emu_wire_peer *p = NULL;
	struct marrow_emu_wire *w;
	char name[MARROW_EMU_WIRE_NAME_MAX];
	uint32_t *hdr;
	int fd;

	printf("  attach refusals\n");
	FAILS(MARROW_EINVAL, marrow_emu_wire_attach(dev, "/etc/passwd", 0, &p));
	FAILS(MARROW_ENOENT, marrow_emu_wire_attach(dev, "/marrow-wire-0-none", 0, &p));
	OK(marrow_emu_wire_create(dev, 4096, &w));
	OK(marrow_emu_wire_name(w, name, sizeof(name)));
	FAILS(MARROW_EINVAL, marrow_emu_wire_export_mr(w, outside));   /* not in the wire's heap */
	{
		void *p;

		FAILS(MARROW_ENOSPC, marrow_emu_wire_alloc(w, 8192, &p));   /* heap of 4 KiB */
	}
	fd = shm_open(name, O_RDWR, 0);
	REQUIRE(fd >= 0, "shm_open(%s)", name);
	hdr = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	REQUIRE(hdr != MAP_FAILED, "mmap");
	hdr[1] = MARROW_EMU_WIRE_VERSION + 1;   /* a peer of another layout */
	FAILS(MARROW_EPROTO, marrow_emu_wire_attach(dev, name, 0, &p));
	hdr[1] = MARROW_EMU_WIRE_VERSION;
	OK(marrow_emu_wire_attach(dev, name, 0, &p));
	OK(marrow_emu_wire_detach(p));
	munmap(hdr, 4096);
	OK(marrow_emu_wire_close(w));
}

int main(void)
{
	int down[2], up[2];
	pid_t child;
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_wire_peer *peer;
	struct marrow_emu_mr *src_mr;
	uint32_t lkey;
	struct t_cq cq;
	struct t_qp qa[3];
	struct hello h;
	uint8_t data[32], *src;
	uint16_t c;
	int alive, st;

	REQUIRE(pipe(down) == 0 && pipe(up) == 0, "pipe");
	fflush(stdout);
	child = fork();
	REQUIRE(child >= 0, "fork");
	if (child == 0) {
		close(down[1]);
		close(up[0]);
		_exit(responder(down[0], up[1]));
	}
	close(down[0]);
	close(up[1]);
	get(up[0], &h, sizeof(h));
	printf("responder pid %d, wire %s, QPs 0x%x 0x%x 0x%x\n", (int)child, h.name, h.qpn[0], h.qpn[1],
	       h.qpn[2]);

	dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_wire_attach(dev, h.name, 0, &peer));
	OK(marrow_emu_wire_peer_alive(peer, &alive));
	CHECK(alive == 1, "responder not alive after attach");
	src = t_alloc(4096, 0);
	for (uint32_t i = 0; i < 3000; i++)
		src[i] = pattern(i, 2);
	OK(marrow_emu_mr_reg(pd, src, 4096, MARROW_ACCESS_LOCAL_WRITE, &src_mr, &lkey, &lkey));
	t_cq_create(dev, 6, 0, &cq);
	for (int i = 0; i < 3; i++) {
		t_qp_create(pd, &cq, 4, 64, &qa[i]);
		connect_wire(&qa[i], peer, h.qpn[i]);
	}
	FAILS(MARROW_EINVAL, marrow_emu_qp_connect_wire(qa[0].qp, peer, h.qpn[0]));   /* not in INIT */

	printf("  inline WRITE, gathered WRITE, WRITE_IMM\n");
	for (uint32_t i = 0; i < 24; i++)
		data[i] = pattern(i, 1);
	c = t_post_inline(&qa[0], h.addr_a, h.rkey_a, data, 24, 1);
	t_ring(&qa[0]);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qa[0].v.qpn, c, NULL);
	{
		struct t_sge sg = { (uint64_t)(uintptr_t)src, 3000, lkey };

		c = t_post_sge(&qa[0], h.addr_a + 4096, h.rkey_a, &sg, 1, 1);
		t_ring(&qa[0]);
		t_expect_cqe(&cq, MX_CQE_REQ, 0, qa[0].v.qpn, c, NULL);
	}
	for (uint32_t i = 0; i < 16; i++)
		data[i] = pattern(i, 3);
	c = t_post_inline_op(&qa[0], MX_OPCODE_RDMA_WRITE_IMM, h.addr_a + 8192, h.rkey_a, data, 16, 1,
			     mx_htobe32(IMM));
	t_ring(&qa[0]);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qa[0].v.qpn, c, NULL);
	st = ask(down[1], up[0], 'C');
	CHECK(st == 'y', "responder: bytes or RESP_WR_IMM CQE wrong (%c)", st);

	printf("  WRITE past the MR end\n");
	c = t_post_inline(&qa[0], h.addr_a + LEN_A - 8, h.rkey_a, data, 16, 1);
	t_ring(&qa[0]);
	t_expect_cqe(&cq, MX_CQE_REQ_ERR, MX_SYND_REMOTE_ACCESS, qa[0].v.qpn, c, NULL);
	st = ask(down[1], up[0], 'E');
	CHECK(st == 'y', "responder QP not in ERR or bytes placed (%c)", st);

	printf("  WRITE after unexport\n");
	CHECK(ask(down[1], up[0], 'U') == 'y', "unexport");
	c = t_post_inline(&qa[1], h.addr_u, h.rkey_u, data, 16, 1);
	t_ring(&qa[1]);
	t_expect_cqe(&cq, MX_CQE_REQ_ERR, MX_SYND_REMOTE_ACCESS, qa[1].v.qpn, c, NULL);
	st = ask(down[1], up[0], 'V');
	CHECK(st == 'y', "bytes landed in a withdrawn MR (%c)", st);

	printf("  responder killed\n");
	REQUIRE(kill(child, SIGKILL) == 0, "kill");
	REQUIRE(waitpid(child, &st, 0) == child, "waitpid");
	/* A WRITE within the heartbeat's freshness window (200 us) may still be
	 * acknowledged, as a NIC acknowledges for a process that just died. */
	t_sleep_us(20000);
	OK(marrow_emu_qp_set_timers(qa[2].qp, 12, 2, 6, 12));   /* 3 x 16.8 ms */
	{
		uint64_t t0 = t_now_ns();
		double ms;

		c = t_post_inline(&qa[2], h.addr_a, h.rkey_a, data, 16, 1);
		t_ring(&qa[2]);
		t_expect_cqe(&cq, MX_CQE_REQ_ERR, MX_SYND_TRANSPORT_RETRY_EXC, qa[2].v.qpn, c, NULL);
		ms = (double)(t_now_ns() - t0) / 1e6;
		printf("    TRANSPORT_RETRY_EXC after %.1f ms (3 x 16.8 ms)\n", ms);
		CHECK(ms >= 50.0 && ms < 2000.0, "retry exhausted after %.1f ms", ms);
	}
	OK(marrow_emu_wire_peer_alive(peer, &alive));
	CHECK(alive == 0, "a killed responder counts as alive");
	CHECK(t_qp_state(&qa[2]) == MARROW_QPS_ERR, "requester not in ERR");

	refused_attach(dev, src_mr);

	for (int i = 0; i < 3; i++)
		OK(marrow_emu_qp_destroy(qa[i].qp));
	OK(marrow_emu_wire_detach(peer));
	OK(marrow_emu_mr_dereg(src_mr));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	return t_finish("test_softnic_shmwire");
}
