/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Host-side parts of the goodput runners shared by gda_goodput_cpu.c and
 * gda_goodput.cu: argument checks, the untimed staging of the source slots
 * and clearing of the destination, the check of the destination after the
 * run, and the result bookkeeping. Same checks, same messages on both.
 */
#ifndef MARROW_GDA_GOODPUT_HOST_H
#define MARROW_GDA_GOODPUT_HOST_H

#include <string.h>
#include "gda/gda_dump.h"
#include "gda/gda_validate.h"
#include "gda/gda_window.h"
#include "marrow/marrow_gda_goodput.h"

/* QPs of a config: 0 and 1 mean one. */
static inline uint32_t gp_qps(const struct marrow_gda_goodput_config *c)
{
	return c->qps == 0 ? 1u : c->qps;
}

static inline int gp_check_one(const char *fn, const struct marrow_gda_goodput_config *c,
			       const struct marrow_gda_endpoint *ep, struct marrow_gda_goodput_result *res);

/* Every endpoint checked, and all of them naming the same buffers. */
static inline int gp_check_args(const char *fn, const struct marrow_gda_goodput_config *c,
				const struct marrow_gda_endpoint *ep, struct marrow_gda_goodput_result *res)
{
	int rc;

	if (res == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: res is NULL", fn);
	if (res->size < sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: res size %u < %zu", fn, res->size, sizeof(*res));
	{
		uint32_t sz = res->size;

		memset(res, 0, sizeof(*res));
		res->size = sz;
	}
	if (c == NULL || c->size < sizeof(*c) || c->comp_mask != 0)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: cfg is NULL, stale (size) or has "
						 "comp_mask set", fn);
	if (gp_qps(c) > MARROW_GDA_GOODPUT_MAX_QPS || gp_qps(c) > GDA_WINDOW_MAX_QPS)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: qps %u must be 1..%u", fn, c->qps,
						 (unsigned)MARROW_GDA_GOODPUT_MAX_QPS);
	if (ep == NULL)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: ep is NULL", fn);
	for (uint32_t q = 0; q < gp_qps(c); q++) {
		if ((rc = gp_check_one(fn, c, &ep[q], res)) != MARROW_OK)
			return rc;
		if (ep[q].local_addr != ep[0].local_addr || ep[q].local_len != ep[0].local_len ||
		    ep[q].lkey != ep[0].lkey || ep[q].remote_addr != ep[0].remote_addr ||
		    ep[q].remote_len != ep[0].remote_len || ep[q].rkey != ep[0].rkey)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: endpoint %u names other buffers "
							 "than endpoint 0; the QPs of one run share one source "
							 "and one destination (each writes its own slice)", fn, q);
	}
	{
		uint64_t n = (ep->local_len < ep->remote_len ? ep->local_len : ep->remote_len) / c->msg_size;

		if (n < gp_qps(c))
			return res->status = marrow_fail(MARROW_EINVAL, "%s: the buffers hold %llu slots of %u "
							 "bytes, fewer than qps %u (one slice per QP)", fn,
							 (unsigned long long)n, c->msg_size, gp_qps(c));
	}
	return MARROW_OK;
}

static inline int gp_check_one(const char *fn, const struct marrow_gda_goodput_config *c,
			       const struct marrow_gda_endpoint *ep, struct marrow_gda_goodput_result *res)
{
	int rc;

	if ((rc = gda_check_endpoint(fn, "initiator", ep)) != MARROW_OK)
		return res->status = rc;
	if (gda_remote_dst(ep))
		return res->status = marrow_fail(MARROW_EINVAL, "%s: goodput checks the destination bytes "
						 "itself; a remote-destination endpoint is not supported", fn);
	if (c->ordering >= GDA_ORD_COUNT)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: unknown ordering %u", fn, c->ordering);
	if (c->msg_size == 0 || c->msg_size > ep->local_len || c->msg_size > ep->remote_len)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: msg_size %u must be 1..min(source %llu, "
						 "destination %llu) bytes", fn, c->msg_size,
						 (unsigned long long)ep->local_len,
						 (unsigned long long)ep->remote_len);
	if (ep->local_addr == 0 || ep->remote_addr == 0)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: source and destination must be set", fn);
	if (c->window == 0 || c->window > ep->qp->sq_wqe_cnt)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: window %u must be 1..%u (the SQ's WQEBBs)",
						 fn, c->window, ep->qp->sq_wqe_cnt);
	if (c->signal_every == 0 || c->signal_every > c->window)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: signal_every %u must be 1..window %u", fn,
						 c->signal_every, c->window);
	if ((c->window + c->signal_every - 1u) / c->signal_every + 1u > ep->cq->cqe_cnt)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: window %u / signal_every %u leaves more "
						 "signaled CQEs outstanding than the CQ's %u entries", fn,
						 c->window, c->signal_every, ep->cq->cqe_cnt);
	if (ep->cq->flags & MARROW_EMU_CQ_COLLAPSED)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: needs a normal CQ (one CQE per signaled "
						 "WQE), not a collapsed one", fn);
	if (c->messages == 0 || c->timeout_ns == 0)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: messages and timeout_ns must be > 0", fn);
	return MARROW_OK;
}

/* Slots PER QP: the buffer's slots (at most 65536) cut into qps slices. */
static inline uint32_t gp_slots(const struct marrow_gda_goodput_config *c, const struct marrow_gda_endpoint *ep)
{
	uint64_t n = (ep->local_len < ep->remote_len ? ep->local_len : ep->remote_len) / c->msg_size;

	return (uint32_t)((n > 65536u ? 65536u : n) / gp_qps(c));
}

/* Byte j of source slot s: distinct per slot and position, never 0 (a
 * cleared destination slot never passes). Host code only. */
static inline uint8_t gp_pattern_byte(uint32_t s, uint32_t j)
{
	uint32_t x = (s * 0x9e3779b9u) ^ ((j / 4u) * 0x85ebca6bu) ^ 0x676f6f64u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return (uint8_t)((x >> (8u * (j % 4u))) | 1u);
}

/* Untimed, before the run: slot s of the source holds pattern bytes of s;
 * the destination slots are cleared. `slots`: all QPs' slots. */
static inline void gp_stage(const struct marrow_gda_goodput_config *c, const struct marrow_gda_endpoint *ep,
			    uint32_t slots)
{
	uint8_t *src = (uint8_t *)(uintptr_t)ep->local_addr;

	for (uint32_t s = 0; s < slots; s++)
		for (uint32_t j = 0; j < c->msg_size; j++)
			src[(size_t)s * c->msg_size + j] = gp_pattern_byte(s, j);
	memset((void *)(uintptr_t)ep->remote_addr, 0, (size_t)slots * c->msg_size);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* After the run: every written destination slot of every QP's slice
 * equals its source slot. `slots` per QP; done_q[q]: QP q's retired count. */
static inline uint64_t gp_check_bytes(const struct marrow_gda_goodput_config *c,
				      const struct marrow_gda_endpoint *ep, uint32_t slots, const uint64_t *done_q)
{
	const uint8_t *src = (const uint8_t *)(uintptr_t)ep->local_addr;
	const uint8_t *dst = (const uint8_t *)(uintptr_t)ep->remote_addr;
	uint64_t bad = 0;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t q = 0; q < gp_qps(c); q++) {
		uint64_t written = done_q[q] < slots ? done_q[q] : slots;

		for (uint64_t s = (uint64_t)q * slots; s < (uint64_t)q * slots + written; s++)
			if (memcmp(src + s * c->msg_size, dst + s * c->msg_size, c->msg_size) != 0)
				bad++;
	}
	return bad;
}

static inline void gp_args(const struct marrow_gda_goodput_config *c, const struct marrow_gda_endpoint *ep,
			   uint32_t slots, struct gda_window_args *a)
{
	memset(a, 0, sizeof(*a));
	a->laddr = ep->local_addr;
	a->raddr = ep->remote_addr;
	a->lkey = ep->lkey;
	a->rkey = ep->rkey;
	a->msg_size = c->msg_size;
	a->slots = slots;
	a->window = c->window;
	a->signal_every = c->signal_every;
	a->messages = c->messages;
	a->warmup = c->warmup;
	a->timeout_ns = c->timeout_ns;
	a->qps = gp_qps(c);
}

/* Result fields and the one message a failure leaves. `slots` per QP;
 * sq/cq: the host views of ep[0..qps-1] (NULL: none), the failing QP's are
 * dumped. */
static inline int gp_finish(const char *fn, const struct marrow_gda_goodput_config *c,
			    const struct marrow_gda_endpoint *eps, const struct gda_window_out *o,
			    uint32_t slots, const struct gda_sq *sqs, const struct gda_cq *cqs,
			    struct marrow_gda_goodput_result *res)
{
	int rc = o->rc;
	uint32_t fq = o->fail_qp < gp_qps(c) ? o->fail_qp : 0u;
	const struct marrow_gda_endpoint *ep = &eps[fq];
	const struct gda_sq *sq = sqs ? &sqs[fq] : NULL;
	const struct gda_cq *cq = cqs ? &cqs[fq] : NULL;

	res->slots = slots * gp_qps(c);
	res->messages_done = o->done;
	res->doorbells = o->posts;
	res->cqes = o->cqes;
	res->fail_message = o->fail_message;
	res->cqe_opcode = o->err.opcode;
	res->cqe_syndrome = o->err.syndrome;
	res->cqe_vendor_syndrome = o->err.vendor_syndrome;
	res->cqe_wqe_counter = o->err.wqe_counter;
	res->expected_wqe_counter = o->err.expected;
	if (rc == MARROW_OK) {
		res->timed_messages = c->messages;
		res->timed_bytes = c->messages * (uint64_t)c->msg_size;
		res->timed_ns = o->t_end - o->t_start;
	}
	res->payload_errors = gp_check_bytes(c, eps, slots, o->done_q);
	if (rc == MARROW_ETIMEDOUT) {
		marrow_fail(rc, "%s: no CQE for message %llu (QP %u of %u) within %llu ns (window %u per QP, "
			    "signal every %u, %llu retired); was the doorbell lost or the NIC engine paused?", fn,
			    (unsigned long long)o->fail_message, fq, gp_qps(c), (unsigned long long)c->timeout_ns,
			    c->window, c->signal_every, (unsigned long long)o->done);
		return res->status = gda_fail_dump(rc, ep, &o->err, sq, cq, c->timeout_ns,
						   (uint32_t)o->fail_message, 0);
	}
	if (rc == MARROW_EIO || rc == MARROW_EPROTO)
		return res->status = marrow_fail(rc, "%s: message %llu: %s CQE (opcode %u, syndrome 0x%02x, "
						 "vendor 0x%02x, wqe_counter %u, expected %u)", fn,
						 (unsigned long long)o->fail_message,
						 rc == MARROW_EIO ? "error" : "unexpected", o->err.opcode,
						 o->err.syndrome, o->err.vendor_syndrome, o->err.wqe_counter,
						 o->err.expected);
	if (rc != MARROW_OK)
		return res->status = marrow_fail(rc, "%s: message %llu: %s", fn,
						 (unsigned long long)o->fail_message, marrow_status_name(rc));
	if (res->payload_errors != 0)
		return res->status = marrow_fail(MARROW_EPROTO, "%s: %llu of %u destination slots did not hold "
						 "the source bytes after the run", fn,
						 (unsigned long long)res->payload_errors, res->slots);
	return res->status = MARROW_OK;
}

#endif /* MARROW_GDA_GOODPUT_HOST_H */
