/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The watchdog dump of a mini-gda wait that timed out (docs/design/watchdog.md),
 * shared by the CPU runner and the host side of the CUDA runner: what was
 * awaited, the poster's counters (when the wait recorded them) and the
 * queues read through the endpoint's views. The views are host memory
 * (placement host), so this works after a kernel has ended too. The
 * software NIC's engine view is added by the caller that owns the NIC
 * (Java: MiniGda; C tests: marrow_emu_qp_dump).
 */
#ifndef MARROW_GDA_DUMP_H
#define MARROW_GDA_DUMP_H

#include <string.h>

#include "common/marrow_dump.h"
#include "marrow/gda_post.h"
#include "marrow/marrow_gda.h"

/* sq/cq: the poster's private state when the caller still has it (CPU
 * runner), else NULL (the counters then come from e, for a CQE wait).
 * want_word: the awaited data word of a word wait, 0 = not known here. */
static inline int gda_fail_dump(int status, const struct marrow_gda_endpoint *ep, const struct gda_err *e,
				const struct gda_sq *sq, const struct gda_cq *cq, uint64_t bound_ns,
				uint32_t iter, uint64_t want_word)
{
	struct marrow_dump d;
	struct marrow_dump_sq s;
	struct marrow_dump_cq c;
	uint32_t log = 0;

	while ((1u << log) < ep->cq->cqe_cnt)
		log++;
	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	marrow_dump_init(&d);
	marrow_dump_kv(&d, "waited_for", "%s", e->wait == GDA_WAIT_WORD ? "data_word" : "cqe");
	marrow_dump_kv(&d, "bound_ms", "%llu", (unsigned long long)(bound_ns / 1000000u));
	marrow_dump_kv(&d, "iteration", "%u", iter);
	if (e->wait == GDA_WAIT_CQE)
		marrow_dump_kv(&d, "want_wqe_counter", "%u", e->expected);
	if (e->wait == GDA_WAIT_WORD && ep->inbox_addr != 0) {
		if (want_word != 0) /* a data word is never 0 (gda_pattern_word) */
			marrow_dump_kv(&d, "want_word", "0x%016llx", (unsigned long long)want_word);
		marrow_dump_kv(&d, "inbox_word", "0x%016llx",
			       (unsigned long long)__atomic_load_n((const uint64_t *)(uintptr_t)ep->inbox_addr,
								   __ATOMIC_ACQUIRE));
	}
	s.qpn = ep->qp->qpn;
	s.dbrec = ep->qp->dbrec;
	c.cqn = ep->cq->cqn;
	c.buf = (const uint8_t *)ep->cq->buf;
	c.dbrec = ep->cq->dbrec;
	c.log_cnt = log;
	c.collapsed = (ep->cq->flags & MARROW_EMU_CQ_COLLAPSED) != 0;
	if (sq != NULL) {
		s.has_pi = s.has_ci = 1;
		s.pi = sq->pi;
		s.ci = sq->ci;
		c.has_ci = 1;
		c.ci = cq->ci;
	} else if (e->wait == GDA_WAIT_CQE) {
		s.has_pi = s.has_ci = 1;
		s.pi = e->sq_pi;
		s.ci = e->sq_ci;
		c.has_ci = 1;
		c.ci = e->cq_ci;
	}
	marrow_dump_sq(&d, &s);
	marrow_dump_cq(&d, &c);
	return marrow_fail_dump(status, &d);
}

#endif /* MARROW_GDA_DUMP_H */
