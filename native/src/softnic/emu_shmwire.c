/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The shared-memory wire between the software NICs of two processes on one
 * host (docs/design/two-process.md). The owner of a segment exports QPs and
 * MRs whose memory lies in the segment's heap; the other process maps the
 * segment and its engine places WRITEs there directly.
 *
 * Protocol words, all in the segment:
 *  - header: magic, version, owner pid, heartbeat (CLOCK_MONOTONIC_RAW ns,
 *    stored by the owner's wire thread every tick), closed flag;
 *  - port (one per exported QP): qpn, state and access mirrored by the wire
 *    thread, the receive producer count (RQ doorbell record, widened to 32
 *    bits), a WRITE_IMM mailbox (claim counter, consumer counter, slots),
 *    and err_req, a request from the requester to move the QP to ERR (the
 *    IB responder's reaction to REMOTE_ACCESS / REMOTE_INVAL_REQ);
 *  - mr (one per exported MR): key (0 = withdrawn), rights, base address in
 *    the owner's space, length, offset in the segment, and an in-flight
 *    count. A writer increments in_flight, then re-reads key; the owner
 *    zeroes key, then waits for in_flight 0. Both sides use sequentially
 *    consistent operations, so either the writer sees the key gone or the
 *    owner sees the writer: no byte lands after unexport returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "marrow/marrow_shmwire.h"
#include "emu_shmwire.h"

struct marrow_emu_wire {
	struct marrow_emu_device *dev;
	struct wire_hdr *hdr;
	uint8_t *base;
	uint64_t total;
	uint64_t heap_used;
	char name[MARROW_EMU_WIRE_NAME_MAX];
	pthread_t tid;
	pthread_mutex_t lock;            /* exports vs the wire thread */
	int stop;                        /* under lock */
	struct marrow_emu_qp *qps[MARROW_EMU_WIRE_MAX_QPS];   /* by port index */
	uint32_t rq_pi16[MARROW_EMU_WIRE_MAX_QPS];            /* last 16-bit DBR seen */
	/* The owner's own copies of what it publishes: the peer can rewrite
	 * the segment's words, so the owner never reads them back. */
	uint32_t rq_pi[MARROW_EMU_WIRE_MAX_QPS];              /* receive WQEs posted */
	uint32_t imm_done[MARROW_EMU_WIRE_MAX_QPS];           /* WRITE_IMMs completed */
	uint32_t mr_key[MARROW_EMU_WIRE_MAX_MRS];             /* exported keys, by entry */
	struct emu_thread *poster;       /* CQE writer identity of the wire thread */
};

struct emu_shmwire_link {
	struct marrow_emu_wire_peer *peer;
	struct wire_port *port;
	uint32_t remote_qpn;
};

struct marrow_emu_wire_peer {
	struct marrow_emu_device *dev;
	struct wire_hdr *hdr;
	uint8_t *base;
	uint64_t total;
	uint64_t dead_after_ns;
	pid_t owner_pid;        /* > 0 in the same pid namespace (copied at attach), else 0: no pid check */
	struct emu_shmwire_link links[MARROW_EMU_WIRE_MAX_QPS];
	uint32_t nlinks;
};

static void wire_sleep_ns(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/* ---- the engine's side ------------------------------------------------------ */

/* Alive: not closed, and a heartbeat younger than four ticks; an older one
 * (the owner may just be descheduled) is checked against the owner's pid,
 * which answers at once for a process that is gone, and counts as dead
 * only after dead_after_ns of silence otherwise. The pid is the copy taken
 * at attach (p->owner_pid, > 0 or the check is off): the segment's word
 * could be rewritten to 0 or -1, and kill() on those addresses a process
 * group or every process. */
static int peer_alive(const struct marrow_emu_wire_peer *p, uint64_t now)
{
	uint64_t hb = __atomic_load_n(&p->hdr->heartbeat_ns, __ATOMIC_ACQUIRE);
	uint64_t age = now > hb ? now - hb : 0;

	if (EMU_UNLIKELY(__atomic_load_n(&p->hdr->closed, __ATOMIC_ACQUIRE)))
		return 0;
	if (EMU_LIKELY(age < WIRE_FRESH_NS))
		return 1;
	if (p->owner_pid > 0 && kill(p->owner_pid, 0) != 0 && errno == ESRCH)
		return 0;
	return age < p->dead_after_ns;
}

static uint64_t pidns_inode(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* One read of an exported MR's entry: the owner may rewrite it at any
 * time, so the checks and the copy use this snapshot only, never the
 * segment again (a second read could see other values than the checked
 * ones). */
struct wire_mr_view {
	uint32_t idx;
	uint32_t access;
	uint64_t base;
	uint64_t len;
	uint64_t off;
};

static int remote_mr(const struct marrow_emu_wire_peer *p, uint32_t key, struct wire_mr_view *v)
{
	if (key == 0)
		return 0;   /* 0 marks a free or withdrawn entry */
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_MRS; i++) {
		struct wire_mr *m = &p->hdr->mr[i];

		if (__atomic_load_n(&m->key, __ATOMIC_ACQUIRE) != key)
			continue;
		v->idx = i;
		v->access = __atomic_load_n(&m->access, __ATOMIC_RELAXED);
		v->base = __atomic_load_n(&m->base, __ATOMIC_RELAXED);
		v->len = __atomic_load_n(&m->len, __ATOMIC_RELAXED);
		v->off = __atomic_load_n(&m->off, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

/* [raddr, raddr + total) inside the MR and the MR inside the heap of a
 * mapping of seg_bytes: written so that no sum can wrap (every operand is
 * the peer's choice). */
static int wire_range_ok(const struct wire_mr_view *v, uint64_t seg_bytes, uint64_t raddr, uint64_t total)
{
	return v->off >= WIRE_HDR_BYTES && v->off <= seg_bytes && v->len <= seg_bytes - v->off &&
	       total <= v->len && raddr >= v->base && raddr - v->base <= v->len - total;
}

/* IB class C: the responder's QP goes to ERR as well (its wire thread does it). */
static uint32_t remote_fail(struct wire_port *port, uint32_t res)
{
	__atomic_store_n(&port->err_req, 1, __ATOMIC_RELEASE);
	return res;
}

#define WIRE_RES_ERR(synd, vsynd) (((uint32_t)(synd) << 8) | (uint32_t)(vsynd))

uint32_t emu_shmwire_write(struct emu_thread *t, struct marrow_emu_qp *qp, const uint8_t *w,
			   const struct emu_piece *pc, uint32_t n, uint64_t inl, uint64_t gat,
			   int with_imm)
{
	struct emu_shmwire_link *l = qp->shmwire;
	struct marrow_emu_wire_peer *p = l->peer;
	struct wire_port *port = l->port;
	uint64_t total = inl + gat;
	uint32_t pst, claim = 0;
	struct wire_mr *m = NULL;
	uint8_t *dst = NULL;

	/* A dead or closed peer, or one not (yet) in RTR/RTS, sends no ACK. */
	if (EMU_UNLIKELY(!peer_alive(p, emu_now_ns())))
		return EMU_WAIT_ACK;
	pst = __atomic_load_n(&port->state, __ATOMIC_ACQUIRE);
	if (EMU_UNLIKELY(__atomic_load_n(&port->qpn, __ATOMIC_ACQUIRE) != l->remote_qpn ||
			 (pst != MARROW_QPS_RTS && pst != MARROW_QPS_RTR)))
		return EMU_WAIT_ACK;
	if (EMU_UNLIKELY(!(__atomic_load_n(&port->access, __ATOMIC_RELAXED) & MARROW_ACCESS_REMOTE_WRITE)))
		return remote_fail(port, WIRE_RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_QP_RIGHTS));
	if (with_imm) {
		if (EMU_UNLIKELY(__atomic_load_n(&port->rq_cnt, __ATOMIC_RELAXED) == 0))
			return remote_fail(port, WIRE_RES_ERR(MX_SYND_REMOTE_INVAL_REQ, EMU_VSYND_PEER_NO_RQ));
		/* A free receive WQE and a free mailbox slot, or RNR. The slot
		 * index is taken modulo the table, whatever the counters say. */
		for (;;) {
			uint32_t pi = __atomic_load_n(&port->rq_pi, __ATOMIC_ACQUIRE);
			uint32_t done = __atomic_load_n(&port->imm_done, __ATOMIC_ACQUIRE);

			claim = __atomic_load_n(&port->imm_claim, __ATOMIC_ACQUIRE);
			if (claim == pi || claim - done >= WIRE_IMM_SLOTS)
				return EMU_WAIT_RNR;
			if (__atomic_compare_exchange_n(&port->imm_claim, &claim, claim + 1, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				break;
		}
	}
	if (total) {
		uint64_t raddr = emu_be64(w + MX_CTRL_SEG_SIZE);
		uint32_t rkey = emu_be32(w + MX_CTRL_SEG_SIZE + 8);
		struct wire_mr_view v;
		uint32_t res = 0;

		if (EMU_UNLIKELY(!remote_mr(p, rkey, &v)))
			res = WIRE_RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_BAD_RKEY);
		else if (EMU_UNLIKELY(!(v.access & MARROW_ACCESS_REMOTE_WRITE)))
			res = WIRE_RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_RKEY_RIGHTS);
		else if (EMU_UNLIKELY(!wire_range_ok(&v, p->total, raddr, total)))
			res = WIRE_RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_RKEY_RANGE);
		if (res == 0) {
			m = &p->hdr->mr[v.idx];
			__atomic_fetch_add(&m->in_flight, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&m->key, __ATOMIC_SEQ_CST) != rkey) {
				__atomic_fetch_sub(&m->in_flight, 1, __ATOMIC_RELEASE);
				m = NULL;
				res = WIRE_RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_BAD_RKEY);   /* withdrawn meanwhile */
			}
		}
		if (EMU_UNLIKELY(res != 0)) {
			if (with_imm) {
				/* The claimed receive WQE completes in error at the owner. */
				struct wire_imm_slot *s = &port->slot[claim % WIRE_IMM_SLOTS];

				s->byte_cnt = UINT32_MAX;
				__atomic_store_n(&s->seq, claim + 1, __ATOMIC_RELEASE);
			}
			return remote_fail(port, res);
		}
		/* From the checked snapshot only: inside [base + WIRE_HDR_BYTES, base + total). */
		dst = p->base + v.off + (raddr - v.base);
	}
	for (uint32_t i = 0; i < n; i++) {
		memcpy(dst, pc[i].src, pc[i].len);
		dst += pc[i].len;
	}
	if (m)
		__atomic_fetch_sub(&m->in_flight, 1, __ATOMIC_RELEASE);
	CTR(t, inline_bytes) += inl;
	CTR(t, gather_bytes) += gat;
	CTR(t, payload_bytes_tx) += total;
	EMU_WIRE_SENT(t, total, with_imm);   /* the wire model, if one is set */
	if (with_imm) {
		struct wire_imm_slot *s = &port->slot[claim % WIRE_IMM_SLOTS];

		s->imm_be = mx_ctrl_imm_be(w);
		s->byte_cnt = (uint32_t)total;
		__atomic_store_n(&s->seq, claim + 1, __ATOMIC_RELEASE);   /* after the bytes */
	}
	return 0;
}

/* ---- the owner's wire thread -------------------------------------------------- */

/* One exported QP: mirror its state and receive count, take its ERR
 * request, and complete its WRITE_IMMs in claim order. The peer writes the
 * mailbox: a slot counts only with the next sequence number, completions
 * never pass the receive WQEs posted (the owner's count, not the
 * segment's), and a byte count no heap can hold completes in error. */
static void serve_port(struct marrow_emu_wire *w, uint32_t i)
{
	struct marrow_emu_qp *qp = w->qps[i];
	struct wire_port *port = &w->hdr->port[i];
	uint32_t st = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);

	if (__atomic_exchange_n(&port->err_req, 0, __ATOMIC_ACQ_REL)) {
		while ((st == MARROW_QPS_RTR || st == MARROW_QPS_RTS) &&
		       !__atomic_compare_exchange_n(&qp->state, &st, MARROW_QPS_ERR, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE))
			;
		st = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	}
	if (qp->rq_cnt) {
		uint16_t pi16 = (uint16_t)mx_be32toh(__atomic_load_n(&qp->dbrec[MX_DBR_RCV], __ATOMIC_ACQUIRE));
		uint16_t ahead = (uint16_t)(pi16 - (uint16_t)w->rq_pi16[i]);

		if (st == MARROW_QPS_RTR || st == MARROW_QPS_RTS) {
			if (ahead && ahead <= qp->rq_cnt) {
				w->rq_pi16[i] = pi16;
				w->rq_pi[i] += ahead;
			}
		}
		__atomic_store_n(&port->rq_pi, w->rq_pi[i], __ATOMIC_RELEASE);
		while (w->imm_done[i] != w->rq_pi[i]) {
			uint32_t done = w->imm_done[i];
			struct wire_imm_slot *s = &port->slot[done % WIRE_IMM_SLOTS];
			uint32_t rq_ci, byte_cnt;

			if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != done + 1)
				break;
			byte_cnt = __atomic_load_n(&s->byte_cnt, __ATOMIC_RELAXED);
			rq_ci = __atomic_fetch_add(&qp->rq_ci, 1, __ATOMIC_ACQ_REL);
			if (byte_cnt > w->total - WIRE_HDR_BYTES)   /* UINT32_MAX: the requester's error marker */
				emu_cqe_post(w->poster, qp->rcq, MX_CQE_RESP_ERR, 0, qp, (uint16_t)rq_ci, 0, 0,
					     MX_SYND_WR_FLUSH, EMU_VSYND_FLUSH);
			else
				emu_cqe_post(w->poster, qp->rcq, MX_CQE_RESP_WR_IMM, 0, qp, (uint16_t)rq_ci,
					     byte_cnt, __atomic_load_n(&s->imm_be, __ATOMIC_RELAXED), 0, 0);
			w->imm_done[i] = done + 1;
			__atomic_store_n(&port->imm_done, done + 1, __ATOMIC_RELEASE);
		}
		/* Rewritten by the peer or not, the word says what the owner did. */
		__atomic_store_n(&port->imm_done, w->imm_done[i], __ATOMIC_RELEASE);
	}
	__atomic_store_n(&port->state, st, __ATOMIC_RELEASE);
}

static void *wire_main(void *arg)
{
	struct marrow_emu_wire *w = arg;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		__atomic_store_n(&w->hdr->heartbeat_ns, emu_now_ns(), __ATOMIC_RELEASE);
		for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_QPS; i++)
			if (w->qps[i])
				serve_port(w, i);
		pthread_mutex_unlock(&w->lock);
		wire_sleep_ns(WIRE_TICK_NS);
	}
}

/* ---- control path: the owner ------------------------------------------------ */

static int wire_check(const struct marrow_emu_wire *w, const char *fn)
{
	if (w == NULL || w->hdr == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: wire is NULL or closed", fn);
	return MARROW_OK;
}

/* Segments left by a process that died before its peer attached (a rank
 * killed while it waited at the rendezvous): /dev/shm/marrow-wire-<pid>-*
 * of this user whose pid is gone from this pid namespace. A segment whose
 * header names another pid namespace is left alone (its pid means nothing
 * here); one whose header was never written is judged by the name's pid. */
static void wire_sweep_stale(void)
{
	uint64_t ns = pidns_inode();
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char name[MARROW_EMU_WIRE_NAME_MAX + 1], *end;
		struct wire_hdr h;
		struct stat st;
		long pid;
		int fd;

		if (strncmp(e->d_name, "marrow-wire-", 12) != 0 || strlen(e->d_name) >= MARROW_EMU_WIRE_NAME_MAX)
			continue;
		pid = strtol(e->d_name + 12, &end, 10);
		if (*end != '-' || pid <= 0 || pid > 0x7fffffffL || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		snprintf(name, sizeof(name), "/%s", e->d_name);
		fd = shm_open(name, O_RDONLY, 0);
		if (fd < 0)
			continue;
		memset(&h, 0, sizeof(h));
		if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode) ||
		    (pread(fd, &h, offsetof(struct wire_hdr, heartbeat_ns), 0) >= 0 && h.magic == WIRE_MAGIC &&
		     (h.owner_pidns != ns || h.owner_pid != (uint32_t)pid))) {
			close(fd);
			continue;
		}
		close(fd);
		shm_unlink(name);
	}
	closedir(d);
}

MARROW_API int marrow_emu_wire_create(struct marrow_emu_device *dev, uint64_t heap_bytes,
				      struct marrow_emu_wire **out)
{
	const char *fn = "marrow_emu_wire_create";
	struct marrow_emu_wire *w;
	uint8_t rnd[16];
	char hex[2 * sizeof(rnd) + 1];
	uint64_t total;
	int fd, rc = emu_dev_check(dev, fn);

	if (rc)
		return rc;
	if (out == NULL || heap_bytes == 0 || heap_bytes > WIRE_HEAP_MAX)
		return marrow_fail(MARROW_EINVAL, "%s: out NULL or heap of %llu bytes outside 1..2^40", fn,
				   (unsigned long long)heap_bytes);
	/* An unguessable name: nobody can create it first or open it by trying names. */
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return marrow_fail(MARROW_EIO, "%s: getrandom: %s", fn, strerror(errno));
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
	wire_sweep_stale();
	total = WIRE_HDR_BYTES + ((heap_bytes + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1));
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	w->poster = emu_zalloc64(sizeof(struct emu_thread));
	if (w->poster == NULL) {
		free(w);
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	}
	w->poster->dev = dev;
	w->dev = dev;
	snprintf(w->name, sizeof(w->name), "/marrow-wire-%d-%s", (int)getpid(), hex);
	fd = shm_open(w->name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		rc = marrow_fail(MARROW_EIO, "%s: shm_open(%s): %s", fn, w->name, strerror(errno));
		goto fail;
	}
	if (ftruncate(fd, (off_t)total) != 0) {
		rc = marrow_fail(MARROW_ENOMEM, "%s: ftruncate(%s, %llu): %s (is /dev/shm large enough?)", fn,
				 w->name, (unsigned long long)total, strerror(errno));
		close(fd);
		shm_unlink(w->name);
		goto fail;
	}
	w->base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (w->base == MAP_FAILED) {
		rc = marrow_fail(MARROW_ENOMEM, "%s: mmap(%s): %s", fn, w->name, strerror(errno));
		shm_unlink(w->name);
		goto fail;
	}
	w->total = total;
	w->hdr = (struct wire_hdr *)w->base;
	w->hdr->version = MARROW_EMU_WIRE_VERSION;
	w->hdr->total_bytes = total;
	w->hdr->owner_pid = (uint32_t)getpid();
	w->hdr->owner_pidns = pidns_inode();
	w->hdr->heartbeat_ns = emu_now_ns();
	__atomic_store_n(&w->hdr->magic, WIRE_MAGIC, __ATOMIC_RELEASE);
	pthread_mutex_init(&w->lock, NULL);
	if (pthread_create(&w->tid, NULL, wire_main, w) != 0) {
		rc = marrow_fail(MARROW_ENOMEM, "%s: cannot start the wire thread", fn);
		munmap(w->base, total);
		shm_unlink(w->name);
		pthread_mutex_destroy(&w->lock);
		goto fail;
	}
	*out = w;
	return MARROW_OK;
fail:
	free(w->poster);
	free(w);
	return rc;
}

MARROW_API int marrow_emu_wire_name(struct marrow_emu_wire *w, char *buf, uint32_t len)
{
	int rc = wire_check(w, "marrow_emu_wire_name");

	if (rc)
		return rc;
	if (buf == NULL || len < strlen(w->name) + 1)
		return marrow_fail(MARROW_ERANGE, "marrow_emu_wire_name: buffer of %u bytes, the name needs %zu",
				   len, strlen(w->name) + 1);
	memcpy(buf, w->name, strlen(w->name) + 1);
	return MARROW_OK;
}

MARROW_API int marrow_emu_wire_alloc(struct marrow_emu_wire *w, uint64_t bytes, void **out)
{
	const char *fn = "marrow_emu_wire_alloc";
	uint64_t n = (bytes + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
	int rc = wire_check(w, fn);

	if (rc)
		return rc;
	if (out == NULL || bytes == 0)
		return marrow_fail(MARROW_EINVAL, "%s: out NULL or 0 bytes", fn);
	pthread_mutex_lock(&w->lock);
	if (n > w->total - WIRE_HDR_BYTES - w->heap_used) {
		rc = marrow_fail(MARROW_ENOSPC, "%s: %llu bytes asked, %llu left in the wire's heap", fn,
				 (unsigned long long)n,
				 (unsigned long long)(w->total - WIRE_HDR_BYTES - w->heap_used));
	} else {
		*out = w->base + WIRE_HDR_BYTES + w->heap_used;
		w->heap_used += n;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

MARROW_API int marrow_emu_wire_export_mr(struct marrow_emu_wire *w, struct marrow_emu_mr *mr)
{
	const char *fn = "marrow_emu_wire_export_mr";
	struct emu_mr_slot slot;
	const struct emu_mr_slot *s = &slot;
	uint64_t heap = (uint64_t)(uintptr_t)(w ? w->base + WIRE_HDR_BYTES : NULL);
	int rc = wire_check(w, fn);

	if (rc)
		return rc;
	if (mr == NULL || mr->magic != EMU_MAGIC_MR)
		return marrow_fail(MARROW_EINVAL, "%s: not a live MR", fn);
	if (mr->pd->dev != w->dev)
		return marrow_fail(MARROW_EINVAL, "%s: MR of another device", fn);
	/* The table may be reallocated by a registration: read the slot under the lock. */
	pthread_mutex_lock(&w->dev->ctl_lock);
	slot = w->dev->mrs[mr->index];
	pthread_mutex_unlock(&w->dev->ctl_lock);
	if (s->base < heap || s->base + s->len > (uint64_t)(uintptr_t)(w->base + w->total))
		return marrow_fail(MARROW_EINVAL, "%s: MR 0x%x [0x%llx, +%llu) is not inside the wire's heap "
				   "(allocate it with marrow_emu_wire_alloc)", fn, mr->key,
				   (unsigned long long)s->base, (unsigned long long)s->len);
	pthread_mutex_lock(&w->lock);
	rc = marrow_fail(MARROW_ENOSPC, "%s: %d MRs exported already", fn, MARROW_EMU_WIRE_MAX_MRS);
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_MRS; i++) {
		if (w->mr_key[i] == mr->key) {
			rc = marrow_fail(MARROW_EINVAL, "%s: MR 0x%x exported twice", fn, mr->key);
			break;
		}
	}
	for (uint32_t i = 0; rc == MARROW_ENOSPC && i < MARROW_EMU_WIRE_MAX_MRS; i++) {
		struct wire_mr *m = &w->hdr->mr[i];

		/* A writer still inside a withdrawn entry keeps it out of use. */
		if (w->mr_key[i] == 0 && __atomic_load_n(&m->in_flight, __ATOMIC_SEQ_CST) == 0) {
			m->access = s->access;
			m->base = s->base;
			m->len = s->len;
			m->off = s->base - (uint64_t)(uintptr_t)w->base;
			w->mr_key[i] = mr->key;
			__atomic_store_n(&m->key, mr->key, __ATOMIC_SEQ_CST);   /* published last */
			rc = MARROW_OK;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

MARROW_API int marrow_emu_wire_unexport_mr(struct marrow_emu_wire *w, struct marrow_emu_mr *mr)
{
	const char *fn = "marrow_emu_wire_unexport_mr";
	int rc = wire_check(w, fn);
	struct wire_mr *m = NULL;
	uint64_t t0;

	if (rc)
		return rc;
	if (mr == NULL || mr->magic != EMU_MAGIC_MR)
		return marrow_fail(MARROW_EINVAL, "%s: not a live MR", fn);
	pthread_mutex_lock(&w->lock);
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_MRS; i++) {
		if (w->mr_key[i] == mr->key) {
			m = &w->hdr->mr[i];
			w->mr_key[i] = 0;
			__atomic_store_n(&m->key, 0, __ATOMIC_SEQ_CST);
		}
	}
	pthread_mutex_unlock(&w->lock);
	if (m == NULL)
		return marrow_fail(MARROW_ENOENT, "%s: MR 0x%x is not exported", fn, mr->key);
	t0 = emu_now_ns();
	while (__atomic_load_n(&m->in_flight, __ATOMIC_SEQ_CST) != 0) {
		if (emu_now_ns() - t0 > WIRE_UNEXPORT_WAIT_NS)
			return marrow_fail(MARROW_ETIMEDOUT, "%s: MR 0x%x withdrawn, but a writer stayed inside it "
					   "for 1 s (the peer died mid-copy?)", fn, mr->key);
		emu_cpu_relax();
	}
	return MARROW_OK;
}

MARROW_API int marrow_emu_wire_export_qp(struct marrow_emu_wire *w, struct marrow_emu_qp *qp)
{
	const char *fn = "marrow_emu_wire_export_qp";
	int rc = wire_check(w, fn);

	if (rc)
		return rc;
	if ((rc = emu_qp_check(qp, fn)))
		return rc;
	pthread_mutex_lock(&w->lock);
	rc = marrow_fail(MARROW_ENOSPC, "%s: %d QPs exported already", fn, MARROW_EMU_WIRE_MAX_QPS);
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_QPS; i++) {
		if (w->qps[i] == qp) {
			rc = marrow_fail(MARROW_EINVAL, "%s: QP 0x%x exported twice", fn, qp->qpn);
			break;
		}
	}
	for (uint32_t i = 0; rc == MARROW_ENOSPC && i < MARROW_EMU_WIRE_MAX_QPS; i++) {
		struct wire_port *port = &w->hdr->port[i];

		if (w->qps[i] != NULL)
			continue;
		memset(port, 0, sizeof(*port));
		port->access = qp->access;
		port->rq_cnt = qp->rq_cnt;
		port->state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
		/* Receives posted before the export count from here on. */
		w->rq_pi16[i] = qp->rq_cnt ? (uint16_t)__atomic_load_n(&qp->rq_ci, __ATOMIC_ACQUIRE) : 0;
		port->rq_pi = w->rq_pi16[i];
		w->rq_pi[i] = port->rq_pi;
		w->imm_done[i] = port->rq_pi;
		port->imm_claim = port->rq_pi;
		port->imm_done = port->rq_pi;
		for (uint32_t k = 0; k < WIRE_IMM_SLOTS; k++)
			port->slot[k].seq = port->rq_pi - 1;
		if (qp->rcq && !qp->rcq->multi_writer) {
			/* The wire thread writes receive CQEs beside the engine. */
			struct marrow_emu_device *dev = qp->pd->dev;

			pthread_mutex_lock(&dev->ctl_lock);
			emu_quiesce(dev);
			qp->rcq->multi_writer = 1;
			emu_unquiesce(dev);
			pthread_mutex_unlock(&dev->ctl_lock);
		}
		w->qps[i] = qp;
		__atomic_store_n(&port->qpn, qp->qpn, __ATOMIC_RELEASE);
		rc = MARROW_OK;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

MARROW_API int marrow_emu_wire_unexport_qp(struct marrow_emu_wire *w, struct marrow_emu_qp *qp)
{
	const char *fn = "marrow_emu_wire_unexport_qp";
	int rc = wire_check(w, fn);

	if (rc)
		return rc;
	pthread_mutex_lock(&w->lock);
	rc = marrow_fail(MARROW_ENOENT, "%s: QP is not exported", fn);
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_QPS; i++) {
		if (w->qps[i] == qp) {
			__atomic_store_n(&w->hdr->port[i].state, MARROW_QPS_RESET, __ATOMIC_RELEASE);
			__atomic_store_n(&w->hdr->port[i].qpn, 0, __ATOMIC_RELEASE);
			w->qps[i] = NULL;
			rc = MARROW_OK;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

MARROW_API int marrow_emu_wire_unlink(struct marrow_emu_wire *w)
{
	int rc = wire_check(w, "marrow_emu_wire_unlink");

	if (rc)
		return rc;
	shm_unlink(w->name);   /* ENOENT once the peer attached or after a first call: fine */
	return MARROW_OK;
}

MARROW_API int marrow_emu_wire_close(struct marrow_emu_wire *w)
{
	int rc = wire_check(w, "marrow_emu_wire_close");

	if (rc)
		return rc;
	__atomic_store_n(&w->hdr->closed, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_QPS; i++) {
		__atomic_store_n(&w->hdr->port[i].qpn, 0, __ATOMIC_RELEASE);
		w->qps[i] = NULL;
	}
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->tid, NULL);
	/* Writers already inside an MR finish before the heap may be reused. */
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_MRS; i++) {
		struct wire_mr *m = &w->hdr->mr[i];
		uint64_t t0 = emu_now_ns();

		w->mr_key[i] = 0;
		__atomic_store_n(&m->key, 0, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&m->in_flight, __ATOMIC_SEQ_CST) != 0 &&
		       emu_now_ns() - t0 < WIRE_UNEXPORT_WAIT_NS)
			emu_cpu_relax();
	}
	shm_unlink(w->name);   /* ENOENT once the peer attached: fine */
	munmap(w->base, w->total);
	pthread_mutex_destroy(&w->lock);
	free(w->poster);
	w->hdr = NULL;
	free(w);
	return MARROW_OK;
}

/* ---- control path: the peer ------------------------------------------------ */

MARROW_API int marrow_emu_wire_attach(struct marrow_emu_device *dev, const char *name,
				      uint32_t dead_after_ms, struct marrow_emu_wire_peer **out)
{
	const char *fn = "marrow_emu_wire_attach";
	struct marrow_emu_wire_peer *p;
	struct wire_hdr h;
	struct stat st;
	void *base;
	int fd, rc = emu_dev_check(dev, fn);

	if (rc)
		return rc;
	if (name == NULL || out == NULL || strncmp(name, "/marrow-wire-", 13) != 0 ||
	    strlen(name) >= MARROW_EMU_WIRE_NAME_MAX || strchr(name + 1, '/') != NULL)
		return marrow_fail(MARROW_EINVAL, "%s: '%s' is not a wire name (/marrow-wire-...)", fn,
				   name ? name : "(null)");
	fd = shm_open(name, O_RDWR, 0);
	if (fd < 0)
		return marrow_fail(errno == ENOENT ? MARROW_ENOENT : MARROW_EIO,
				   "%s: shm_open(%s): %s (the peer is on another host, or gone?)", fn, name,
				   strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = marrow_fail(MARROW_EIO, "%s: fstat(%s): %s", fn, name, strerror(errno));
		close(fd);
		return rc;
	}
	/* Only a segment this user made for itself: another user's (or a
	 * world-writable) one could be rewritten under us by someone we do not
	 * trust. marrow_emu_wire_create makes them 0600. */
	if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0600 || !S_ISREG(st.st_mode)) {
		close(fd);
		return marrow_fail(MARROW_EPERM, "%s: %s belongs to uid %u with mode %04o; a wire must be the "
				   "caller's own (uid %u) with mode 0600: refused", fn, name, (unsigned)st.st_uid,
				   (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
	}
	if ((uint64_t)st.st_size < WIRE_HDR_BYTES || (uint64_t)st.st_size > WIRE_HDR_BYTES + WIRE_HEAP_MAX) {
		close(fd);
		return marrow_fail(MARROW_EPROTO, "%s: %s is %lld bytes, outside a wire's %u..%llu", fn, name,
				   (long long)st.st_size, (unsigned)WIRE_HDR_BYTES,
				   (unsigned long long)(WIRE_HDR_BYTES + WIRE_HEAP_MAX));
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return marrow_fail(MARROW_ENOMEM, "%s: mmap(%s): %s", fn, name, strerror(errno));
	memcpy(&h, base, offsetof(struct wire_hdr, heartbeat_ns));
	if (h.magic != WIRE_MAGIC || h.version != MARROW_EMU_WIRE_VERSION || h.total_bytes != (uint64_t)st.st_size) {
		munmap(base, (size_t)st.st_size);
		return marrow_fail(MARROW_EPROTO, "%s: %s has magic 0x%08x version %u size %llu; this build "
				   "speaks 0x%08x version %u (run the same Marrow on both sides)", fn, name, h.magic,
				   h.version, (unsigned long long)h.total_bytes, WIRE_MAGIC,
				   MARROW_EMU_WIRE_VERSION);
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		munmap(base, (size_t)st.st_size);
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	}
	shm_unlink(name);   /* both mappings keep it; nothing left in /dev/shm if either dies */
	p->dev = dev;
	p->base = base;
	p->hdr = base;
	p->total = (uint64_t)st.st_size;
	p->dead_after_ns = (uint64_t)(dead_after_ms ? dead_after_ms : WIRE_DEAD_DEFAULT_MS) * 1000000u;
	/* From the header copy h: a pid is checked only in the same pid
	 * namespace and only when it names one process (> 0). */
	if (h.owner_pidns != 0 && h.owner_pidns == pidns_inode() && h.owner_pid > 0 && h.owner_pid <= 0x7fffffffu)
		p->owner_pid = (pid_t)h.owner_pid;
	*out = p;
	return MARROW_OK;
}

MARROW_API int marrow_emu_wire_peer_alive(struct marrow_emu_wire_peer *p, int *alive)
{
	if (p == NULL || alive == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_wire_peer_alive: NULL argument");
	*alive = peer_alive(p, emu_now_ns()) &&
		 !(p->owner_pid > 0 && kill(p->owner_pid, 0) != 0 && errno == ESRCH);
	return MARROW_OK;
}

/* Clears the wire link of every QP of dev that uses p. Engine parked. */
static void unlink_qps(struct marrow_emu_wire_peer *p)
{
	struct marrow_emu_device *dev = p->dev;

	for (uint32_t i = 0; i < dev->qps_len; i++)
		if (dev->qps[i]->shmwire && dev->qps[i]->shmwire->peer == p)
			dev->qps[i]->shmwire = NULL;   /* its WQEs now time out: RETRY_EXC */
}

MARROW_API int marrow_emu_wire_detach(struct marrow_emu_wire_peer *p)
{
	struct marrow_emu_device *dev;

	if (p == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_wire_detach: NULL");
	dev = p->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	unlink_qps(p);
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
	munmap(p->base, p->total);
	free(p);
	return MARROW_OK;
}

MARROW_API int marrow_emu_qp_connect_wire(struct marrow_emu_qp *qp, struct marrow_emu_wire_peer *p,
					  uint32_t remote_qpn)
{
	const char *fn = "marrow_emu_qp_connect_wire";
	struct marrow_emu_device *dev;
	struct wire_port *port = NULL;
	struct emu_shmwire_link *l = NULL;
	int rc = emu_qp_check(qp, fn);

	if (rc)
		return rc;
	if (p == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: peer wire is NULL", fn);
	dev = qp->pd->dev;
	if (dev != p->dev)
		return marrow_fail(MARROW_EINVAL, "%s: the wire was attached on another device", fn);
	for (uint32_t i = 0; i < MARROW_EMU_WIRE_MAX_QPS; i++)
		if (remote_qpn != 0 && __atomic_load_n(&p->hdr->port[i].qpn, __ATOMIC_ACQUIRE) == remote_qpn)
			port = &p->hdr->port[i];
	if (port == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: QP 0x%x: the peer exports no QP 0x%x", fn, qp->qpn,
				   remote_qpn);
	pthread_mutex_lock(&dev->ctl_lock);
	for (uint32_t i = 0; i < p->nlinks; i++)
		if (p->links[i].port == port)
			l = &p->links[i];
	if (l == NULL && p->nlinks < MARROW_EMU_WIRE_MAX_QPS) {
		l = &p->links[p->nlinks++];
		l->peer = p;
		l->port = port;
		l->remote_qpn = remote_qpn;
	}
	if (l == NULL) {
		pthread_mutex_unlock(&dev->ctl_lock);
		return marrow_fail(MARROW_ENOSPC, "%s: %d links on this wire already", fn, MARROW_EMU_WIRE_MAX_QPS);
	}
	emu_quiesce(dev);
	if (__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) != MARROW_QPS_INIT) {
		rc = marrow_fail(MARROW_EINVAL, "%s: QP 0x%x must be in INIT", fn, qp->qpn);
	} else {
		qp->peer = NULL;
		qp->shmwire = l;
		__atomic_store_n(&qp->state, MARROW_QPS_RTR, __ATOMIC_RELEASE);
	}
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
	return rc;
}
