/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Argument checks shared by the CPU runner (gda_cpu.c) and the CUDA runner
 * (gda_cuda.cu), so both reject the same configurations with the same
 * messages before anything is posted. Also the result bookkeeping both use.
 */
#ifndef MARROW_GDA_VALIDATE_H
#define MARROW_GDA_VALIDATE_H

#include <string.h>
#include "common/marrow_common.h"
#include "marrow/gda_post.h"
#include "marrow/marrow_gda.h"

static inline int gda_is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1u)) == 0;
}

/* The endpoint's destination is on another host: never map or read it. */
static inline int gda_remote_dst(const struct marrow_gda_endpoint *e)
{
	return (e->flags & MARROW_GDA_EP_REMOTE_DST) != 0;
}

static inline int gda_check_endpoint(const char *fn, const char *who,
				     const struct marrow_gda_endpoint *e)
{
	const struct marrow_qp_view *q;
	const struct marrow_cq_view *c;

	if (e == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: %s endpoint is NULL", fn, who);
	if (e->size < sizeof(*e))
		return marrow_fail(MARROW_EINVAL, "%s: %s endpoint size %u < %zu (stale caller?)",
				   fn, who, e->size, sizeof(*e));
	if (e->flags & ~(uint32_t)(MARROW_GDA_EP_UAR_MMIO | MARROW_GDA_EP_REMOTE_DST))
		return marrow_fail(MARROW_EINVAL, "%s: %s endpoint has unknown flags 0x%x", fn, who, e->flags);
	if (e->placement != MARROW_GDA_PLACEMENT_HOST && e->placement != MARROW_GDA_PLACEMENT_GPU)
		return marrow_fail(MARROW_EINVAL, "%s: unknown queue placement %u", fn, e->placement);
	q = e->qp;
	c = e->cq;
	if (q == NULL || c == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: %s endpoint has no QP or CQ view", fn, who);
	if (q->sq_buf == NULL || q->dbrec == NULL || q->uar == NULL || !gda_is_pow2(q->sq_wqe_cnt) ||
	    q->sq_stride != MX_WQEBB_SIZE)
		return marrow_fail(MARROW_EINVAL,
				   "%s: %s QP view is incomplete (sq_buf/dbrec/uar set, sq_wqe_cnt a power "
				   "of two, sq_stride 64; got sq_wqe_cnt %u stride %u)",
				   fn, who, q->sq_wqe_cnt, q->sq_stride);
	if (c->buf == NULL || c->dbrec == NULL || !gda_is_pow2(c->cqe_cnt) || c->cqe_size != MX_CQE_SIZE)
		return marrow_fail(MARROW_EINVAL,
				   "%s: %s CQ view is incomplete (buf/dbrec set, cqe_cnt a power of two, "
				   "cqe_size 64; got cqe_cnt %u size %u)", fn, who, c->cqe_cnt, c->cqe_size);
	return MARROW_OK;
}

static inline int gda_check_payload(const char *fn, const char *who, const struct marrow_gda_config *cfg,
				    const struct marrow_gda_endpoint *e)
{
	uint32_t len = cfg->msg_size;

	if (cfg->payload == MARROW_GDA_PAYLOAD_INLINE) {
		if (len > e->qp->max_inline_data)
			return marrow_fail(MARROW_ERANGE,
					   "%s: inline payload of %u bytes exceeds the QP's max_inline_data "
					   "%u; use payload 'pointer' or a QP with a larger max_inline_data",
					   fn, len, e->qp->max_inline_data);
		if (mx_wqebbs(mx_ds_inline_write(len)) > e->qp->sq_wqe_cnt)
			return marrow_fail(MARROW_ERANGE, "%s: an inline WQE of %u bytes needs %u WQEBBs, "
					   "the SQ has %u", fn, len, mx_wqebbs(mx_ds_inline_write(len)),
					   e->qp->sq_wqe_cnt);
	} else {
		if (e->local_addr == 0 || e->local_len < ((uint64_t)len + 3u) / 4u * 4u)
			return marrow_fail(MARROW_EINVAL, "%s: %s source buffer of %llu bytes cannot hold "
					   "a %u-byte payload (rounded up to whole words)", fn, who,
					   (unsigned long long)e->local_len, len);
	}
	if (e->remote_addr == 0 || e->remote_len < len)
		return marrow_fail(MARROW_EINVAL, "%s: %s destination of %llu bytes is smaller than "
				   "the %u-byte payload", fn, who, (unsigned long long)e->remote_len, len);
	return MARROW_OK;
}

/*
 * The run's parameters alone (no endpoint): the one check of the mini-gda
 * limits. The runners call it first; marrow_gda_config_check exports it so
 * that Java refuses a bad command line with this message before anything is
 * built. Counts are printed signed: a negative command-line value reads as
 * what was typed.
 */
static inline int gda_check_config(const char *fn, const struct marrow_gda_config *cfg)
{
	if (cfg == NULL || cfg->size < sizeof(*cfg))
		return marrow_fail(MARROW_EINVAL, "%s: config missing or too small", fn);
	if (cfg->ordering >= GDA_ORD_COUNT)
		return marrow_fail(MARROW_EINVAL, "%s: unknown ordering %u (0..%d)", fn, cfg->ordering,
				   GDA_ORD_COUNT - 1);
	if (cfg->payload > MARROW_GDA_PAYLOAD_POINTER)
		return marrow_fail(MARROW_EINVAL, "%s: unknown payload mode %u", fn, cfg->payload);
	if (cfg->experiment > MARROW_GDA_EXP_DB2CQE)
		return marrow_fail(MARROW_EINVAL, "%s: unknown experiment %u", fn, cfg->experiment);
	if (cfg->msg_size < 1 || cfg->msg_size > MX_MAX_MSG_LEN)
		return marrow_fail(MARROW_EINVAL, "size %d must be 1..%d bytes", (int)cfg->msg_size, MX_MAX_MSG_LEN);
	if (cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP && cfg->msg_size != 8)
		return marrow_fail(MARROW_EINVAL, "round trip polls one 8-byte data word: size must be 8, not %u",
				   cfg->msg_size);
	if (cfg->iters < 1 || cfg->iters > 0xffffffffull)
		return marrow_fail(MARROW_EINVAL, "iters %lld must be 1..2^32-1", (long long)cfg->iters);
	if (cfg->warmup > 0xffffffffull)
		return marrow_fail(MARROW_EINVAL, "warmup %lld must be 0..2^32-1", (long long)cfg->warmup);
	if ((int64_t)cfg->timeout_ns <= 0)
		return marrow_fail(MARROW_EINVAL, "timeout %lld ns must be > 0", (long long)cfg->timeout_ns);
	if (cfg->responder_delay_ns != 0 && cfg->experiment != MARROW_GDA_EXP_ROUND_TRIP)
		return marrow_fail(MARROW_EINVAL, "a responder delay (%u ns) applies to the round trip only",
				   cfg->responder_delay_ns);
	if (cfg->responder_delay_ns >= cfg->timeout_ns)
		return marrow_fail(MARROW_EINVAL, "the responder delay (%u ns) must be shorter than the wait bound "
				   "(%lld ns)", cfg->responder_delay_ns, (long long)cfg->timeout_ns);
	return MARROW_OK;
}

static inline int gda_check_args(const char *fn, const struct marrow_gda_config *cfg,
				 const struct marrow_gda_endpoint *ep,
				 const struct marrow_gda_endpoint *peer,
				 const uint64_t *samples_ns, struct marrow_gda_result *res)
{
	int rc;

	if (res == NULL || res->size < sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: result struct missing or too small", fn);
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	if (samples_ns == NULL)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: samples_ns is NULL", fn);
	rc = gda_check_config(fn, cfg);
	if (rc != MARROW_OK)
		return res->status = rc;
	rc = gda_check_endpoint(fn, "initiator", ep);
	if (rc == MARROW_OK)
		rc = gda_check_payload(fn, "initiator", cfg, ep);
	if (rc == MARROW_OK && cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP && gda_remote_dst(ep)) {
		/* two hosts: the peer role runs there (marrow_gda_*_serve) */
		if (peer != NULL)
			rc = marrow_fail(MARROW_EINVAL, "%s: the initiator's destination is remote "
					 "(MARROW_GDA_EP_REMOTE_DST): the round-trip peer runs on the other host "
					 "(marrow_gda_*_serve there), so pass no peer endpoint", fn);
		else if ((ep->inbox_addr & 7u) || ep->inbox_addr == 0)
			rc = marrow_fail(MARROW_EINVAL, "%s: round trip needs an 8-byte aligned inbox word "
					 "on the initiator (where the remote peer's reply lands)", fn);
	} else if (rc == MARROW_OK && cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP) {
		if (peer != NULL && gda_remote_dst(peer))
			rc = marrow_fail(MARROW_EINVAL, "%s: the peer endpoint's destination is remote "
					 "(MARROW_GDA_EP_REMOTE_DST) but the initiator's is local: one process "
					 "runs both sides of a round trip only on one host", fn);
		if (rc == MARROW_OK)
			rc = gda_check_endpoint(fn, "peer", peer);
		if (rc == MARROW_OK)
			rc = gda_check_payload(fn, "peer", cfg, peer);
		if (rc == MARROW_OK && ((ep->inbox_addr & 7u) || ep->inbox_addr == 0 ||
					(peer->inbox_addr & 7u) || peer->inbox_addr == 0))
			rc = marrow_fail(MARROW_EINVAL, "%s: round trip needs 8-byte aligned inbox words on "
					 "both endpoints", fn);
	}
	res->status = rc;
	return rc;
}

/* marrow_gda_*_serve: the peer role of a round trip, alone. */
static inline int gda_check_serve_args(const char *fn, const struct marrow_gda_config *cfg,
				       const struct marrow_gda_endpoint *ep, struct marrow_gda_result *res)
{
	int rc;

	if (res == NULL || res->size < sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: result struct missing or too small", fn);
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	rc = gda_check_config(fn, cfg);
	if (rc != MARROW_OK)
		return res->status = rc;
	if (cfg->experiment != MARROW_GDA_EXP_ROUND_TRIP)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: only the round trip has a peer role "
						 "(experiment %u): issue and put+completion need nothing from the "
						 "destination's host but a connected QP and a registered inbox",
						 fn, cfg->experiment);
	rc = gda_check_endpoint(fn, "peer", ep);
	if (rc == MARROW_OK)
		rc = gda_check_payload(fn, "peer", cfg, ep);
	if (rc == MARROW_OK && ((ep->inbox_addr & 7u) || ep->inbox_addr == 0))
		rc = marrow_fail(MARROW_EINVAL, "%s: the peer role polls its inbox word: inbox_addr must be "
				 "set and 8-byte aligned", fn);
	res->status = rc;
	return rc;
}

/* GPU-resident queues (placement gpu) are out of reach of CPU threads, and
 * the two-host responder has only host-resident queues. */
/*
 * GPU-resident queues of a hardware NIC (DevX QPs on mlx5,
 * docs/design/mlx5-queue-formats.md §7): SQ, CQ and DBRs are GPU memory,
 * the doorbell is device MMIO, and the data buffers are host memory
 * registered through verbs, mapped per run as on host placement. The
 * software NIC's device engine (placement gpu without an MMIO doorbell)
 * keeps its buffers in GPU memory too.
 */
static inline int gda_gpu_queues_host_buffers(const struct marrow_gda_endpoint *e)
{
	return e->placement == MARROW_GDA_PLACEMENT_GPU && (e->flags & MARROW_GDA_EP_UAR_MMIO) != 0;
}

static inline int gda_refuse_gpu_placement(const char *fn, const char *why, const struct marrow_gda_endpoint *ep,
					   const struct marrow_gda_endpoint *peer, struct marrow_gda_result *res)
{
	if ((ep != NULL && ep->placement == MARROW_GDA_PLACEMENT_GPU) ||
	    (peer != NULL && peer->placement == MARROW_GDA_PLACEMENT_GPU))
		return res->status = marrow_fail(MARROW_EINVAL, "%s: queue placement 'gpu' keeps the SQ, CQ and "
						 "DBRs in GPU memory: %s", fn, why);
	return MARROW_OK;
}

static inline void gda_sq_init(struct gda_sq *s, const struct marrow_qp_view *q, uint8_t *buf,
			       uint32_t *dbrec, uint64_t *uar)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->dbrec = dbrec;
	s->uar = uar;
	s->wqebb_cnt = q->sq_wqe_cnt;
	s->qpn = q->qpn;
	s->max_inline = q->max_inline_data;
	/* Resume where earlier producers left the ring: the DBR holds the
	 * exclusive producer counter (16 bits; the ring is <= 32768 WQEBBs). */
	s->pi = mx_be32toh(dbrec[MX_DBR_SND]) & 0xffffu;
	s->ci = s->pi;
}

static inline void gda_cq_init(struct gda_cq *c, const struct marrow_cq_view *v, uint8_t *buf, uint32_t *dbrec)
{
	uint32_t log = 0;

	while ((1u << log) < v->cqe_cnt)
		log++;
	memset(c, 0, sizeof(*c));
	c->buf = buf;
	c->dbrec = dbrec;
	c->log_cnt = log;
	c->collapsed = (v->flags & MARROW_EMU_CQ_COLLAPSED) != 0;
	c->ci = mx_be32toh(dbrec[0]) & 0xffffffu;
}

static inline const char *gda_status_word(int s)
{
	return marrow_status_name(s);
}

#endif
