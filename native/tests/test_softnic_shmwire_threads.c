/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The shared-memory wire (docs/design/two-process.md) with several engine
 * threads on both sides, as gda loaded across processes runs it
 * (section 11, engine placement): a forked responder of 4 engine threads
 * exports two QPs; the requester's 8 QPs, spread over its 4 engine
 * threads and sharing one CQ, post inline WRITEs and WRITE_IMMs to them
 * at once (the imm claims of several threads race on one port); then
 * every requester QP is moved to another engine thread while its second
 * batch is in flight, and the responder moves its exported QPs between
 * threads too. Every CQE arrives once, every byte lands where it was
 * sent, every WRITE_IMM consumes one receive and gives one RESP_WR_IMM
 * CQE with its immediate.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "emu_test_util.h"
#include "marrow/marrow_shmwire.h"

enum {
	THREADS = 4, NQ = 8, WRITES = 16, IMMS = 4, BATCHES = 2,
	LEN = 64 * 1024, IMM_BASE = 32 * 1024, NRECV = 48,
};

struct hello {
	char name[MARROW_EMU_WIRE_NAME_MAX];
	uint32_t qpn[2];
	uint32_t rkey;
	uint64_t addr;
};

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

/* The word QP q sends in batch b as its r-th WRITE (or WRITE_IMM). */
static uint64_t word(uint32_t q, uint32_t b, uint32_t r)
{
	return 0xa500000000000000ull | ((uint64_t)q << 32) | (b << 16) | r;
}

static uint32_t imm(uint32_t q, uint32_t b, uint32_t r)
{
	return 0x10000u | (q << 8) | (b << 4) | r;
}

static uint32_t engine_of(struct marrow_emu_qp *qp)
{
	uint32_t t = UINT32_MAX;

	OK(marrow_emu_qp_engine(qp, &t));
	return t;
}

/* ---- responder (child) ------------------------------------------------------ */

static int responder(int in, int out)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, THREADS);
	struct marrow_emu_pd *pd;
	struct marrow_emu_wire *w;
	struct marrow_emu_mr *mr;
	struct t_cq cq, rcq;
	struct t_qp qb[2];
	struct hello h;
	uint64_t *a;
	char cmd;

	memset(&h, 0, sizeof(h));
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_wire_create(dev, 1 << 20, &w));
	OK(marrow_emu_wire_name(w, h.name, sizeof(h.name)));
	OK(marrow_emu_wire_alloc(w, LEN, (void **)&a));
	OK(marrow_emu_mr_reg(pd, a, LEN, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mr, &h.rkey, &h.rkey));
	OK(marrow_emu_wire_export_mr(w, mr));
	t_cq_create(dev, 6, 0, &cq);
	t_cq_create(dev, 7, 0, &rcq);
	for (int i = 0; i < 2; i++) {
		t_qp_create_ex(pd, &cq, &rcq, 4, 6, 64, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &qb[i]);
		OK(marrow_emu_qp_set_engine(qb[i].qp, 3 - i));
		t_connect(&qb[i], qb[i].v.qpn);   /* its own sends are not used here */
		OK(marrow_emu_wire_export_qp(w, qb[i].qp));
		h.qpn[i] = qb[i].v.qpn;
	}
	t_post_recv(&qb[0], NRECV);
	h.addr = (uint64_t)(uintptr_t)a;
	put(out, &h, sizeof(h));
	for (;;) {
		char ok = 'y';

		get(in, &cmd, 1);
		if (cmd == 'M') {   /* exported QPs to other engine threads, connected and in use */
			for (int i = 0; i < 2; i++) {
				OK(marrow_emu_qp_set_engine(qb[i].qp, (uint32_t)i));
				ok = engine_of(qb[i].qp) == (uint32_t)i ? ok : 'e';
			}
		} else if (cmd == 'C') {
			uint32_t seen[NQ][BATCHES][IMMS];

			memset(seen, 0, sizeof(seen));
			for (uint32_t q = 0; q < NQ; q++)
				for (uint32_t b = 0; b < BATCHES; b++)
					for (uint32_t r = 0; r < WRITES; r++)
						ok = a[(q * BATCHES + b) * WRITES + r] == word(q, b, r) ? ok : 'n';
			for (uint32_t k = 0; k < NQ / 2 * BATCHES * IMMS; k++) {
				uint8_t cqe[64];
				uint32_t v, q, b, r;

				if (!t_poll(&rcq, cqe, 2000000000ull) || mx_cqe_opcode(cqe) != MX_CQE_RESP_WR_IMM ||
				    mx_cqe_qpn(cqe) != qb[0].v.qpn || mx_cqe_byte_cnt(cqe) != 8) {
					ok = 'i';
					break;
				}
				v = mx_be32toh(mx_cqe_imm_be(cqe));
				q = (v >> 8) & 0xff;
				b = (v >> 4) & 0xf;
				r = v & 0xf;
				if ((v >> 16) != 1 || q >= NQ / 2 || b >= BATCHES || r >= IMMS || seen[q][b][r]++)
					ok = 'm';
				else if (a[IMM_BASE / 8 + (q * BATCHES + b) * IMMS + r] != word(q, b, 0x100 + r))
					ok = 'w';
			}
			{
				uint8_t extra[64];

				ok = t_poll(&rcq, extra, 1000000ull) ? 'x' : ok;   /* no CQE twice */
			}
		} else if (cmd == 'Q') {
			break;
		}
		put(out, &ok, 1);
	}
	for (int i = 0; i < 2; i++) {
		OK(marrow_emu_wire_unexport_qp(w, qb[i].qp));
		OK(marrow_emu_qp_destroy(qb[i].qp));
	}
	OK(marrow_emu_wire_unexport_mr(w, mr));
	OK(marrow_emu_mr_dereg(mr));
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

/* Posts batch b on every QP (WRITEs; WRITE_IMMs on the QPs of the first exported QP), rings each. */
static void post_batch(struct t_qp *qa, const struct hello *h, uint32_t b)
{
	for (uint32_t q = 0; q < NQ; q++) {
		for (uint32_t r = 0; r < WRITES; r++) {
			uint64_t v = word(q, b, r);

			t_post_inline(&qa[q], h->addr + 8ull * ((q * BATCHES + b) * WRITES + r), h->rkey, &v, 8, 1);
		}
		for (uint32_t r = 0; q < NQ / 2 && r < IMMS; r++) {
			uint64_t v = word(q, b, 0x100 + r);

			t_post_inline_op(&qa[q], MX_OPCODE_RDMA_WRITE_IMM,
					 h->addr + IMM_BASE + 8ull * ((q * BATCHES + b) * IMMS + r), h->rkey, &v, 8, 1,
					 mx_htobe32(imm(q, b, r)));
		}
		t_ring(&qa[q]);
	}
}

/* Every CQE of batch b once, successful, in order per QP. */
static void reap_batch(struct t_cq *cq, struct t_qp *qa, const uint16_t *first)
{
	uint32_t got[NQ] = { 0 };
	uint32_t total = 0, want = NQ * WRITES + NQ / 2 * IMMS;

	while (total < want) {
		uint8_t cqe[64];
		uint32_t q;

		if (!t_poll(cq, cqe, 2000000000ull)) {
			CHECK(0, "%u of %u CQEs of the batch", total, want);
			return;
		}
		for (q = 0; q < NQ && mx_cqe_qpn(cqe) != qa[q].v.qpn; q++)
			;
		CHECK(q < NQ && mx_cqe_opcode(cqe) == MX_CQE_REQ, "CQE opcode %u syndrome 0x%02x qpn 0x%x",
		      mx_cqe_opcode(cqe), mx_cqe_syndrome(cqe), mx_cqe_qpn(cqe));
		if (q < NQ) {
			CHECK(mx_cqe_wqe_counter(cqe) == (uint16_t)(first[q] + got[q]),
			      "QP %u: CQE for WQE %u, expected %u", q, mx_cqe_wqe_counter(cqe),
			      (uint16_t)(first[q] + got[q]));
			got[q]++;
		}
		total++;
	}
}

int main(void)
{
	int down[2], up[2];
	pid_t child;
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_wire_peer *peer;
	struct t_cq cq;
	struct t_qp qa[NQ];
	struct hello h;
	uint16_t first[NQ];
	int st;

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
	printf("responder pid %d, wire %s, QPs 0x%x 0x%x, %d engine threads each side\n", (int)child, h.name,
	       h.qpn[0], h.qpn[1], THREADS);

	dev = t_open(MARROW_EMU_POLL_IDLE, THREADS);
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_wire_attach(dev, h.name, 0, &peer));
	t_cq_create(dev, 8, 0, &cq);   /* one CQ, written by every engine thread */
	for (uint32_t q = 0; q < NQ; q++) {
		t_qp_create(pd, &cq, 7, 64, &qa[q]);
		OK(marrow_emu_qp_set_engine(qa[q].qp, q % THREADS));   /* placed before the wire link */
		/* RNR forever: the responder's receives reach its port on the wire thread's next tick,
		 * which a loaded host may delay past the default 6 x 0.64 ms */
		OK(marrow_emu_qp_set_timers(qa[q].qp, 14, 7, 7, 12));
		OK(marrow_emu_qp_modify(qa[q].qp, MARROW_QPS_INIT, 0));
		OK(marrow_emu_qp_connect_wire(qa[q].qp, peer, h.qpn[q < NQ / 2 ? 0 : 1]));
		OK(marrow_emu_qp_modify(qa[q].qp, MARROW_QPS_RTS, 0));
		CHECK(engine_of(qa[q].qp) == q % THREADS, "QP %u on thread %u", q, engine_of(qa[q].qp));
	}

	printf("  batch 0: 8 QPs on 4 engine threads, WRITEs and WRITE_IMMs at once\n");
	for (uint32_t q = 0; q < NQ; q++)
		first[q] = qa[q].pi;
	post_batch(qa, &h, 0);
	reap_batch(&cq, qa, first);

	printf("  responder moves its exported QPs; batch 1 with every QP moved while in flight\n");
	st = ask(down[1], up[0], 'M');
	CHECK(st == 'y', "responder: exported QPs not moved (%c)", st);
	for (uint32_t q = 0; q < NQ; q++)
		first[q] = qa[q].pi;
	post_batch(qa, &h, 1);
	for (uint32_t q = 0; q < NQ; q++) {
		OK(marrow_emu_qp_set_engine(qa[q].qp, (q + 1) % THREADS));
		CHECK(engine_of(qa[q].qp) == (q + 1) % THREADS, "QP %u on thread %u after the move", q,
		      engine_of(qa[q].qp));
	}
	reap_batch(&cq, qa, first);

	st = ask(down[1], up[0], 'C');
	CHECK(st == 'y', "responder: bytes, RESP_WR_IMM CQEs or immediates wrong (%c)", st);
	put(down[1], "Q", 1);   /* no answer: the responder tears down and exits */
	REQUIRE(waitpid(child, &st, 0) == child, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "responder exit status 0x%x", st);

	for (uint32_t q = 0; q < NQ; q++)
		OK(marrow_emu_qp_destroy(qa[q].qp));
	OK(marrow_emu_wire_detach(peer));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	return t_finish("test_softnic_shmwire_threads");
}
