/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * libFuzzer harness for the shared-memory wire (emu_shmwire.c,
 * docs/design/two-process.md §4a): each side of a wire reads words the other
 * process writes, so each input plays the hostile other side. It includes
 * emu_shmwire.c itself to reach the owner's serve_port (scripts/fuzz.sh
 * leaves that file out of the softnic sources it compiles beside it).
 *
 * Input (missing bytes read as 0, so every byte string is valid):
 *   B0 & 1 = 0: PEER mode, a hostile OWNER. The harness writes a segment
 *     into /dev/shm: header flags B1 (bit 0 magic raw, 1 version raw,
 *     2 total_bytes raw, 3 mode 0644, 4 owner pid raw, 5 pid namespace
 *     raw, 6 heartbeat stale, 7 closed), port 0 (qpn u8, state u8, access
 *     u8, rq_cnt u8, rq_pi/imm_claim/imm_done u16) and up to 8 MR entries
 *     (key u8, access u8, base/len/off as VAL), attaches it, connects a QP
 *     to port 0 and runs ops: WRITE (rkey u8, raddr VAL, length u16 % 2048,
 *     with_imm bit) through emu_shmwire_write, or POKE (field u8, VAL): the
 *     owner rewrites an entry, a port word, the closed flag or the
 *     heartbeat between WRITEs.
 *   B0 & 1 = 1: OWNER mode, a hostile PEER. A wire (built here without its
 *     thread, so serve_port runs only when the input says) exports a QP
 *     with a 16-entry receive queue; ops: RECV n (the owner posts receives),
 *     PORT (field u8, u32: the peer rewrites rq_pi, imm_claim, imm_done,
 *     err_req or a mailbox slot), FILL (slots k.. get consecutive sequence
 *     numbers from a u32 base: many completions at once), SERVE.
 *   VAL: selector u8; bit 0: raw u64; else u16 (+ WIRE_HDR_BYTES for an
 *     offset, + FZ_BASE for an address when bit 1).
 *
 * Invariants (a violation aborts with a message):
 *  - no crash, no ASan/UBSan report (a copy outside the mapping faults);
 *  - attach succeeds only for a 0600 segment with the right magic, version
 *    and size;
 *  - a WRITE that returns 0 had an entry with its rkey, REMOTE_WRITE, and
 *    a target inside the entry and the entry inside the heap, computed
 *    here in 128-bit arithmetic from the entry as the harness wrote it; and
 *    its bytes are at segment + off + (raddr - base);
 *  - a WRITE refused as out of range had a target out of range;
 *  - the owner never completes more receives than it posted, and its
 *    completion count is what it publishes (imm_done).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "softnic/emu_shmwire.c"

#define FZ_FAIL(...)                                                       \
	do {                                                               \
		fprintf(stderr, "shmwire_fuzz: invariant violated: ");    \
		fprintf(stderr, __VA_ARGS__);                              \
		fputc('\n', stderr);                                       \
		abort();                                                   \
	} while (0)

#define FZ_BASE 0x7000000000ull
enum { FZ_HEAP = 16 * 1024, FZ_MRS = 8, FZ_OPS = 64, FZ_RQ_LOG = 4 };

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t rd_u8(struct rd *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

static uint16_t rd_u16(struct rd *r)
{
	uint16_t lo = rd_u8(r);

	return (uint16_t)(lo | (rd_u8(r) << 8));
}

static uint32_t rd_u32(struct rd *r)
{
	uint32_t lo = rd_u16(r);

	return lo | ((uint32_t)rd_u16(r) << 16);
}

static uint64_t rd_u64(struct rd *r)
{
	uint64_t lo = rd_u32(r);

	return lo | ((uint64_t)rd_u32(r) << 32);
}

/* kind 0: length, 1: offset, 2: address */
static uint64_t rd_val(struct rd *r, int kind)
{
	uint8_t sel = rd_u8(r);
	uint64_t v;

	if (sel & 1)
		return rd_u64(r);
	v = rd_u16(r);
	if (sel & 2)
		v += kind == 1 ? WIRE_HDR_BYTES : kind == 2 ? FZ_BASE : 0;
	return v;
}

static struct marrow_emu_device *g_dev;
static struct marrow_emu_pd *g_pd;
static struct emu_thread *g_thr;

static void setup_once(void)
{
	struct marrow_emu_device_attr a = { .size = sizeof(a), .engine_threads = 1, .engine_cpu = -1, .quiet = 1 };

	if (g_dev)
		return;
	if (marrow_emu_device_open(&a, &g_dev) || marrow_emu_engine_pause(g_dev, 1) ||
	    marrow_emu_pd_alloc(g_dev, &g_pd))
		FZ_FAIL("could not open and pause the device: %s", marrow_last_error());
	g_thr = emu_zalloc64(sizeof(*g_thr));
	if (g_thr == NULL)
		abort();
	g_thr->dev = g_dev;
}

static struct marrow_emu_cq *make_cq(uint32_t log_n)
{
	struct marrow_emu_cq_attr a = { .size = sizeof(a), .log_cqe_cnt = log_n };
	struct marrow_cq_view v;
	struct marrow_emu_cq *cq;

	if (marrow_emu_cq_create(g_dev, &a, &cq, &v))
		FZ_FAIL("cq_create: %s", marrow_last_error());
	return cq;
}

static struct marrow_emu_qp *make_qp(struct marrow_emu_cq *cq, struct marrow_emu_cq *rcq, uint32_t log_rq,
				     struct marrow_qp_view *v)
{
	struct marrow_emu_qp_attr a = {
		.size = sizeof(a), .send_cq = cq, .recv_cq = rcq, .log_sq_wqebb_cnt = 4,
		.log_rq_wqe_cnt = log_rq, .max_rq_sge = 1, .max_inline_data = 64,
		.access = MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
	};
	struct marrow_emu_qp *qp;

	if (marrow_emu_qp_create(g_pd, &a, &qp, v))
		FZ_FAIL("qp_create: %s", marrow_last_error());
	return qp;
}

/* ---- PEER mode: a hostile owner ------------------------------------------- */

static uint64_t pidns_here(void)
{
	return pidns_inode();
}

/* What the checks must conclude about [raddr, raddr + n) for entry m, in
 * arithmetic that cannot wrap. */
static int oracle_in_range(const struct wire_mr *m, uint64_t seg, uint64_t raddr, uint64_t n)
{
	unsigned __int128 off = m->off, len = m->len, base = m->base, ra = raddr;

	return off >= WIRE_HDR_BYTES && off + len <= seg && ra >= base && ra + n <= base + len;
}

static void poke(struct wire_hdr *h, struct rd *r)
{
	uint8_t f = rd_u8(r);
	struct wire_mr *m = &h->mr[(f >> 3) % FZ_MRS];

	switch (f & 7) {
	case 0: m->off = rd_val(r, 1); break;
	case 1: m->len = rd_val(r, 0); break;
	case 2: m->base = rd_val(r, 2); break;
	case 3: __atomic_store_n(&m->key, rd_u8(r), __ATOMIC_SEQ_CST); break;
	case 4: m->access = rd_u8(r); break;
	case 5: h->port[0].state = rd_u8(r) % 8; break;
	case 6: h->port[0].rq_pi = rd_u16(r); break;
	default: h->closed = rd_u8(r) & 1; break;
	}
}

static void peer_mode(struct rd *r)
{
	static unsigned long serial;
	uint8_t fl = rd_u8(r);
	uint64_t total = WIRE_HDR_BYTES + FZ_HEAP;
	char name[MARROW_EMU_WIRE_NAME_MAX];
	struct marrow_emu_wire_peer *p = NULL;
	struct marrow_qp_view qv;
	struct marrow_emu_cq *cq;
	struct marrow_emu_qp *qp;
	struct wire_hdr *h;
	uint8_t *seg;
	uint32_t qpn;
	int fd;

	snprintf(name, sizeof(name), "/marrow-wire-%d-fuzz-%lu", (int)getpid(), serial++);
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		FZ_FAIL("shm_open(%s): %s", name, strerror(errno));
	if (ftruncate(fd, (off_t)total) != 0 || fchmod(fd, fl & 8 ? 0644 : 0600) != 0)
		FZ_FAIL("ftruncate/fchmod");
	seg = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (seg == MAP_FAILED)
		FZ_FAIL("mmap");
	h = (struct wire_hdr *)seg;
	h->magic = fl & 1 ? rd_u32(r) : WIRE_MAGIC;
	h->version = fl & 2 ? rd_u32(r) : MARROW_EMU_WIRE_VERSION;
	h->total_bytes = fl & 4 ? rd_u64(r) : total;
	h->owner_pid = fl & 16 ? rd_u32(r) : (uint32_t)getpid();
	h->owner_pidns = fl & 32 ? rd_u64(r) : pidns_here();
	h->heartbeat_ns = fl & 64 ? rd_u64(r) : emu_now_ns() + 3600ull * 1000000000ull;   /* fresh all run */
	h->closed = fl >> 7;
	qpn = 0x100u | rd_u8(r);
	h->port[0].state = rd_u8(r) % 8;
	h->port[0].access = rd_u8(r);
	h->port[0].rq_cnt = rd_u8(r);
	h->port[0].rq_pi = rd_u16(r);
	h->port[0].imm_claim = rd_u16(r);
	h->port[0].imm_done = rd_u16(r);
	h->port[0].qpn = qpn;
	for (uint32_t i = 0, n = rd_u8(r) % (FZ_MRS + 1); i < n; i++) {
		struct wire_mr *m = &h->mr[i];

		m->key = rd_u8(r);
		m->access = rd_u8(r);
		m->base = rd_val(r, 2);
		m->len = rd_val(r, 0);
		m->off = rd_val(r, 1);
	}
	if (marrow_emu_wire_attach(g_dev, name, 0, &p) != 0) {
		shm_unlink(name);
		munmap(seg, total);
		return;
	}
	if ((fl & 8) || h->magic != WIRE_MAGIC || h->version != MARROW_EMU_WIRE_VERSION || h->total_bytes != total)
		FZ_FAIL("attached a segment of mode %s, magic 0x%x, version %u, size %llu (mapped %llu)",
			fl & 8 ? "0644" : "0600", h->magic, h->version, (unsigned long long)h->total_bytes,
			(unsigned long long)total);
	cq = make_cq(6);
	qp = make_qp(cq, NULL, 0, &qv);
	if (marrow_emu_qp_modify(qp, MARROW_QPS_INIT, 0) || marrow_emu_qp_connect_wire(qp, p, qpn))
		FZ_FAIL("connect_wire to port qpn 0x%x: %s", qpn, marrow_last_error());
	for (uint32_t op = 0; op < FZ_OPS && r->n; op++) {
		uint8_t k = rd_u8(r);

		if (k & 1) {
			poke(h, r);
		} else {
			uint8_t wqe[64] = { 0 }, src[2048];
			uint32_t rkey = rd_u8(r);
			uint64_t raddr = rd_val(r, 2);
			uint32_t len = rd_u16(r) % sizeof(src);
			struct emu_piece pc = { src, len };
			struct wire_mr *m = NULL;
			uint32_t res;

			for (uint32_t i = 0; i < len; i++)
				src[i] = (uint8_t)(op * 31 + i + 1);
			for (int b = 0; b < 8; b++)
				wqe[MX_CTRL_SEG_SIZE + b] = (uint8_t)(raddr >> (56 - 8 * b));
			for (int b = 0; b < 4; b++)
				wqe[MX_CTRL_SEG_SIZE + 8 + b] = (uint8_t)(rkey >> (24 - 8 * b));
			for (uint32_t i = 0; rkey && i < MARROW_EMU_WIRE_MAX_MRS && m == NULL; i++)
				if (h->mr[i].key == rkey)
					m = &h->mr[i];
			res = emu_shmwire_write(g_thr, qp, wqe, &pc, len ? 1 : 0, 0, len, (k >> 1) & 1);
			if (res == 0 && len) {
				if (m == NULL || !(m->access & MARROW_ACCESS_REMOTE_WRITE) ||
				    !oracle_in_range(m, total, raddr, len))
					FZ_FAIL("WRITE of %u bytes to 0x%llx rkey 0x%x placed, but the entry (off 0x%llx len "
						"0x%llx base 0x%llx) does not allow it", len, (unsigned long long)raddr, rkey,
						m ? (unsigned long long)m->off : 0ull, m ? (unsigned long long)m->len : 0ull,
						m ? (unsigned long long)m->base : 0ull);
				if (memcmp(seg + m->off + (raddr - m->base), src, len) != 0)
					FZ_FAIL("WRITE placed, but its bytes are not at segment + off + (raddr - base)");
			}
			if (res == WIRE_RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_RKEY_RANGE) &&
			    (m == NULL || oracle_in_range(m, total, raddr, len)))
				FZ_FAIL("WRITE of %u bytes to 0x%llx refused as out of range, but it is inside", len,
					(unsigned long long)raddr);
		}
	}
	if (marrow_emu_qp_destroy(qp) || marrow_emu_wire_detach(p) || marrow_emu_cq_destroy(cq))
		FZ_FAIL("teardown: %s", marrow_last_error());
	munmap(seg, total);
}

/* ---- OWNER mode: a hostile peer -------------------------------------------- */

static void owner_mode(struct rd *r)
{
	uint64_t total = WIRE_HDR_BYTES + FZ_HEAP;
	struct marrow_emu_wire *w = calloc(1, sizeof(*w));
	struct marrow_emu_cq *cq, *rcq;
	struct marrow_emu_qp *qp;
	struct marrow_qp_view qv;
	struct wire_port *port;
	uint32_t posted = 0, ci0, rq_pi16 = 0;

	if (w == NULL)
		abort();
	w->base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w->base == MAP_FAILED)
		abort();
	w->dev = g_dev;
	w->hdr = (struct wire_hdr *)w->base;
	w->total = total;
	w->poster = g_thr;
	pthread_mutex_init(&w->lock, NULL);
	cq = make_cq(6);
	rcq = make_cq(8);
	qp = make_qp(cq, rcq, FZ_RQ_LOG, &qv);
	if (marrow_emu_qp_modify(qp, MARROW_QPS_INIT, 0) || marrow_emu_qp_modify(qp, MARROW_QPS_RTR, qp->qpn) ||
	    marrow_emu_qp_modify(qp, MARROW_QPS_RTS, 0) || marrow_emu_wire_export_qp(w, qp))
		FZ_FAIL("owner QP: %s", marrow_last_error());
	port = &w->hdr->port[0];
	ci0 = __atomic_load_n(&qp->rq_ci, __ATOMIC_ACQUIRE);
	for (uint32_t op = 0; op < FZ_OPS && r->n; op++) {
		uint8_t k = rd_u8(r);

		switch (k % 4) {
		case 0: {   /* the owner posts receives, never more than the RQ holds */
			uint32_t done = __atomic_load_n(&qp->rq_ci, __ATOMIC_ACQUIRE) - ci0;
			uint32_t n = (k >> 2) % 8;

			if (posted + n - done > (1u << FZ_RQ_LOG))
				n = (1u << FZ_RQ_LOG) - (posted - done);
			posted += n;
			rq_pi16 = (uint16_t)(rq_pi16 + n);
			__atomic_store_n(&qv.dbrec[MX_DBR_RCV], mx_htobe32(rq_pi16), __ATOMIC_RELEASE);
			break;
		}
		case 1: {   /* the peer rewrites one word */
			uint8_t f = rd_u8(r);
			uint32_t v = rd_u32(r);
			struct wire_imm_slot *s = &port->slot[(f >> 3) % WIRE_IMM_SLOTS];

			switch (f & 7) {
			case 0: port->rq_pi = v; break;
			case 1: port->imm_claim = v; break;
			case 2: port->imm_done = v; break;
			case 3: port->err_req = v; break;
			case 4: s->seq = v; break;
			case 5: s->byte_cnt = v; break;
			default: s->imm_be = v; break;
			}
			break;
		}
		case 2: {   /* the peer fills slots with consecutive sequence numbers */
			uint32_t seq = rd_u32(r), n = rd_u8(r);

			for (uint32_t i = 0; i < n; i++) {
				struct wire_imm_slot *s = &port->slot[(seq + i) % WIRE_IMM_SLOTS];

				s->byte_cnt = rd_u8(r) < 16 ? UINT32_MAX : (uint32_t)i * 8;
				s->seq = seq + i + 1;
			}
			break;
		}
		default:
			pthread_mutex_lock(&w->lock);
			serve_port(w, 0);
			pthread_mutex_unlock(&w->lock);
			{
				uint32_t done = __atomic_load_n(&qp->rq_ci, __ATOMIC_ACQUIRE) - ci0;

				if (done > posted)
					FZ_FAIL("the owner completed %u receives, %u were posted", done, posted);
				if (__atomic_load_n(&port->imm_done, __ATOMIC_ACQUIRE) != w->imm_done[0])
					FZ_FAIL("published imm_done %u, the owner's count %u", port->imm_done,
						w->imm_done[0]);
			}
			break;
		}
	}
	if (marrow_emu_wire_unexport_qp(w, qp) || marrow_emu_qp_destroy(qp) || marrow_emu_cq_destroy(cq) ||
	    marrow_emu_cq_destroy(rcq))
		FZ_FAIL("teardown: %s", marrow_last_error());
	pthread_mutex_destroy(&w->lock);
	munmap(w->base, total);
	free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };

	setup_once();
	if (rd_u8(&r) & 1)
		owner_mode(&r);
	else
		peer_mode(&r);
	return 0;
}
