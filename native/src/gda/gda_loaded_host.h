/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Host-side parts of the loaded round-trip runners shared by
 * gda_loaded_cpu.c and gda_loaded.cu: argument checks (same refusals, same
 * messages) and the check of the background destination after the run.
 */
#ifndef MARROW_GDA_LOADED_HOST_H
#define MARROW_GDA_LOADED_HOST_H

#include <string.h>
#include "gda/gda_stream.h"
#include "gda/gda_validate.h"
#include "marrow/marrow_gda_loaded.h"

static inline int gl_check(const char *fn, const struct marrow_gda_loaded_config *c, const struct marrow_gda_endpoint *probe,
		 const struct marrow_gda_endpoint *peer, const struct marrow_gda_endpoint *bg, const uint64_t *samples)
{
	int rc;

	if (c == NULL || c->size < sizeof(*c) || c->comp_mask || samples == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: cfg NULL/stale/with comp_mask bits, or no samples", fn);
	if (c->role > MARROW_GDA_LOADED_RESPONDER)
		return marrow_fail(MARROW_EINVAL, "%s: unknown role %u", fn, c->role);
	if (c->role != MARROW_GDA_LOADED_BOTH) {
		/* two processes: the round trip's other side is the other process */
		if (peer != NULL)
			return marrow_fail(MARROW_EINVAL, "%s: two processes (role %u): the other process answers the "
					   "probe, so pass no peer endpoint", fn, c->role);
		if ((rc = gda_check_endpoint(fn, "probe", probe)) != MARROW_OK)
			return rc;
		if (!gda_remote_dst(probe))
			return marrow_fail(MARROW_EINVAL, "%s: two processes (role %u): the probe's destination must be "
					   "remote (MARROW_GDA_EP_REMOTE_DST)", fn, c->role);
		peer = probe; /* the checks below then apply to the one endpoint */
	} else {
		if ((rc = gda_check_endpoint(fn, "probe", probe)) || (rc = gda_check_endpoint(fn, "peer", peer)))
			return rc;
		if (gda_remote_dst(probe) || gda_remote_dst(peer))
			return marrow_fail(MARROW_EINVAL, "%s: one process: no remote destination (two processes set "
					   "role INITIATOR or RESPONDER)", fn);
	}
	if (probe->inbox_addr == 0 || (probe->inbox_addr & 7) || peer->inbox_addr == 0 || (peer->inbox_addr & 7))
		return marrow_fail(MARROW_EINVAL, "%s: both inboxes must be set and 8-byte aligned", fn);
	if (c->ordering >= GDA_ORD_COUNT || c->queue > MARROW_GDA_LOADED_RESERVED)
		return marrow_fail(MARROW_EINVAL, "%s: unknown ordering %u or queue %u", fn, c->ordering, c->queue);
	if (c->iters == 0 || c->timeout_ns == 0)
		return marrow_fail(MARROW_EINVAL, "%s: iters and timeout_ns must be > 0", fn);
	if (c->bg_streams > MARROW_GDA_LOADED_MAX_STREAMS)
		return marrow_fail(MARROW_EINVAL, "%s: bg_streams %u > %d", fn, c->bg_streams, MARROW_GDA_LOADED_MAX_STREAMS);
	if (probe->qp->max_inline_data < 8 || peer->qp->max_inline_data < 8)
		return marrow_fail(MARROW_EINVAL, "%s: the QPs need max_inline_data >= 8", fn);
	if (c->bg_streams == 0)
		return MARROW_OK;
	if (c->bg_window == 0 || c->bg_signal_every == 0 || c->bg_signal_every > c->bg_window)
		return marrow_fail(MARROW_EINVAL, "%s: bg_window >= 1 and 1 <= bg_signal_every <= bg_window", fn);
	if (c->bg_dst_addr == 0 || c->bg_dst_len < 8ull * MARROW_GDA_LOADED_SLOTS * c->bg_streams)
		return marrow_fail(MARROW_EINVAL, "%s: background destination of %llu bytes < %u streams x %d slots x 8",
				   fn, (unsigned long long)c->bg_dst_len, c->bg_streams, MARROW_GDA_LOADED_SLOTS);
	if (c->queue == MARROW_GDA_LOADED_RESERVED) {
		if (bg == NULL)
			return marrow_fail(MARROW_EINVAL, "%s: reserved queues need bg_eps (one per stream)", fn);
		for (uint32_t k = 0; k < c->bg_streams; k++) {
			if ((rc = gda_check_endpoint(fn, "background", &bg[k])) != MARROW_OK)
				return rc;
			if (c->bg_window > bg[k].qp->sq_wqe_cnt || bg[k].cq->cqe_cnt < c->bg_window / c->bg_signal_every + 2)
				return marrow_fail(MARROW_EINVAL, "%s: background QP %u: window %u > SQ %u or CQ %u too small",
						   fn, k, c->bg_window, bg[k].qp->sq_wqe_cnt, bg[k].cq->cqe_cnt);
		}
	} else if (c->bg_window > probe->qp->sq_wqe_cnt ||
		   probe->cq->cqe_cnt < c->bg_window / c->bg_signal_every + 2) {
		return marrow_fail(MARROW_EINVAL, "%s: shared QP: window %u > SQ %u or CQ %u too small", fn, c->bg_window,
				   probe->qp->sq_wqe_cnt, probe->cq->cqe_cnt);
	}
	return MARROW_OK;
}

/* Each slot must hold the last value its stream sent there. */
static inline uint64_t gl_check_slots(uint64_t dst_addr, uint32_t streams, const uint64_t *posted)
{
	const uint32_t *dst = (const uint32_t *)(uintptr_t)dst_addr;
	uint64_t bad = 0;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t k = 0; k < streams; k++) {
		uint64_t n = posted[k];

		for (uint32_t s = 0; s < MARROW_GDA_LOADED_SLOTS && s < n; s++) {
			uint64_t i = (n - 1) - ((n - 1 - s) % MARROW_GDA_LOADED_SLOTS);
			const uint32_t *v = dst + 2 * ((size_t)k * MARROW_GDA_LOADED_SLOTS + s);

			if (v[0] != gda_stream_word(k, i, 0) || v[1] != gda_stream_word(k, i, 1))
				bad++;
		}
	}
	return bad;
}

static inline uint64_t gl_check_bg_slots(const struct marrow_gda_loaded_config *c, const uint64_t *posted)
{
	return gl_check_slots(c->bg_dst_addr, c->bg_streams, posted);
}

#endif /* MARROW_GDA_LOADED_HOST_H */
