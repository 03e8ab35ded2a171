/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Watchdog snapshot of one QP (marrow_emu_qp_snapshot, docs/design/watchdog.md):
 * the engine's own view of the SQ (what doorbells it took, what it fetched
 * and executed), the doorbells still waiting in the page, the send CQ and the
 * engine counters. A control-path call: it parks the engine (as every
 * control call does before it reads engine state), so the numbers are one
 * consistent moment and need no atomics on the engine's side.
 */
#include <stdio.h>
#include <string.h>

#include "common/marrow_dump.h"
#include "emu_internal.h"

MARROW_API int marrow_emu_qp_snapshot(struct marrow_emu_qp *qp, struct marrow_emu_qp_snapshot *out)
{
	static const char fn[] = "marrow_emu_qp_snapshot";
	struct marrow_emu_device *dev;
	uint64_t ctr[MARROW_EMU_CTR_COUNT];
	struct marrow_emu_cq *cq;
	int rc = emu_qp_check(qp, fn);

	if (rc)
		return rc;
	if (out == NULL || out->size != sizeof(*out))
		return marrow_fail(MARROW_EINVAL, "%s: out is NULL or out->size is not %zu", fn, sizeof(*out));
	dev = qp->pd->dev;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);

	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	cq = qp->scq;
	out->qpn = qp->qpn;
	out->state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	out->sq_wqebb_cnt = qp->sq_cnt;
	out->sq_db_index = qp->db_target;
	out->sq_fetch_pi = qp->fetch_pi;
	out->sq_exec_ci = __atomic_load_n(&qp->exec_ci, __ATOMIC_ACQUIRE);
	out->dbr_send = mx_be32toh(__atomic_load_n(&qp->dbrec[MX_DBR_SND], __ATOMIC_ACQUIRE)) & 0xffffu;
	out->wait_kind = qp->wait_kind;
	out->db_pending[0] = __atomic_load_n((uint64_t *)qp->uar->page, __ATOMIC_ACQUIRE);
	out->db_pending[1] = __atomic_load_n((uint64_t *)(qp->uar->page + EMU_UAR_HALF), __ATOMIC_ACQUIRE);
	if (cq != NULL) {
		uint32_t prod = __atomic_load_n(&cq->prod, __ATOMIC_ACQUIRE);

		out->cqn = cq->cqn;
		out->cq_ci = mx_be32toh(__atomic_load_n(&cq->dbrec[0], __ATOMIC_ACQUIRE)) & 0xffffffu;
		out->cq_pi = prod;
		out->cq_in_error = __atomic_load_n(&cq->in_error, __ATOMIC_ACQUIRE);
		if (prod != 0) {
			const uint8_t *cqe = cq->buf + (size_t)((cq->flags & MARROW_EMU_CQ_COLLAPSED) ? 0
								    : ((prod - 1u) & cq->mask)) * MX_CQE_SIZE;
			out->last_cqe_valid = 1;
			out->last_cqe_opcode = mx_cqe_opcode(cqe);
			out->last_cqe_syndrome = marrow_cqe_error_syndrome(cqe);
			out->last_cqe_wqe_counter = mx_cqe_wqe_counter(cqe);
		}
	}
	pthread_mutex_lock(&dev->park_lock);
	out->engine_paused = (uint32_t)dev->user_paused;
	pthread_mutex_unlock(&dev->park_lock);
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);

	rc = marrow_emu_counters_read(dev, ctr, MARROW_EMU_CTR_COUNT);
	if (rc)
		return rc;
	out->doorbells_observed = ctr[MARROW_EMU_CTR_doorbells_observed];
	out->doorbells_dropped = ctr[MARROW_EMU_CTR_doorbells_dropped];
	out->doorbells_stale = ctr[MARROW_EMU_CTR_doorbells_stale];
	out->doorbell_recoveries = ctr[MARROW_EMU_CTR_doorbell_recoveries];
	out->wqebb_fetched = ctr[MARROW_EMU_CTR_wqebb_fetched];
	out->cqe_req = ctr[MARROW_EMU_CTR_cqe_req];
	out->cqe_req_err = ctr[MARROW_EMU_CTR_cqe_req_err];
	out->wqe_sanity_fail = ctr[MARROW_EMU_CTR_wqe_sanity_fail];
	return MARROW_OK;
}

static const char *wait_kind_name(uint32_t k)
{
	return k == EMU_WAIT_RNR ? "rnr" : k == EMU_WAIT_ACK ? "ack" : "none";
}

/* The emu_ part of a watchdog dump, from a snapshot. */
static void render(struct marrow_dump *d, const struct marrow_emu_qp_snapshot *s)
{
	char tmp[8];

	marrow_dump_kv(d, "emu_qpn", "0x%x", s->qpn);
	marrow_dump_kv(d, "emu_qp_state", "%s", marrow_qp_state_name((int)s->state));
	marrow_dump_kv(d, "emu_sq_pi", "%u", s->sq_db_index);
	marrow_dump_kv(d, "emu_sq_fetched", "%u", s->sq_fetch_pi);
	marrow_dump_kv(d, "emu_sq_ci", "%u", s->sq_exec_ci);
	marrow_dump_kv(d, "emu_dbr", "%u", s->dbr_send);
	marrow_dump_kv(d, "emu_db_pending", "0x%016llx", (unsigned long long)s->db_pending[0]);
	if (s->db_pending[1] != 0)
		marrow_dump_kv(d, "emu_db_pending_bf1", "0x%016llx", (unsigned long long)s->db_pending[1]);
	marrow_dump_kv(d, "emu_wait", "%s", wait_kind_name(s->wait_kind));
	marrow_dump_kv(d, "emu_cqn", "0x%x", s->cqn);
	marrow_dump_kv(d, "emu_cq_pi", "%u", s->cq_pi);
	marrow_dump_kv(d, "emu_cq_ci", "%u", s->cq_ci);
	if (s->cq_in_error)
		marrow_dump_kv(d, "emu_cq_overrun", "1");
	if (s->last_cqe_valid)
		marrow_dump_kv(d, "emu_last_cqe", "%s/0x%02x/%u", marrow_cqe_opcode_name(s->last_cqe_opcode, tmp),
			       s->last_cqe_syndrome, s->last_cqe_wqe_counter);
	else
		marrow_dump_kv(d, "emu_last_cqe", "none");
	marrow_dump_kv(d, "emu_engine", "%s", s->engine_paused ? "paused" : "running");
	marrow_dump_kv(d, "emu_doorbells_observed", "%llu", (unsigned long long)s->doorbells_observed);
	marrow_dump_kv(d, "emu_doorbells_dropped", "%llu", (unsigned long long)s->doorbells_dropped);
	marrow_dump_kv(d, "emu_doorbells_stale", "%llu", (unsigned long long)s->doorbells_stale);
	marrow_dump_kv(d, "emu_doorbell_recoveries", "%llu", (unsigned long long)s->doorbell_recoveries);
	marrow_dump_kv(d, "emu_wqebb_fetched", "%llu", (unsigned long long)s->wqebb_fetched);
	marrow_dump_kv(d, "emu_cqe_req", "%llu", (unsigned long long)s->cqe_req);
	marrow_dump_kv(d, "emu_cqe_req_err", "%llu", (unsigned long long)s->cqe_req_err);
	marrow_dump_kv(d, "emu_wqe_sanity_fail", "%llu", (unsigned long long)s->wqe_sanity_fail);
}

int emu_qp_dump(struct marrow_emu_qp *qp, struct marrow_dump *d)
{
	struct marrow_emu_qp_snapshot s = { .size = sizeof(s) };
	int rc = marrow_emu_qp_snapshot(qp, &s);

	if (rc == MARROW_OK)
		render(d, &s);
	return rc;
}

MARROW_API int marrow_emu_qp_dump(struct marrow_emu_qp *qp, char *buf, uint32_t len)
{
	struct marrow_dump d;
	int rc;

	if (buf == NULL || len == 0)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_qp_dump: buf is NULL or len is 0");
	marrow_dump_init(&d);
	rc = emu_qp_dump(qp, &d);
	if (rc)
		return rc;
	/* drop the leading space; truncate at a pair boundary */
	{
		const char *t = d.len ? d.text + 1 : d.text;
		size_t n = strlen(t);

		if (n >= len) {
			n = len - 1;
			while (n > 0 && t[n] != ' ')
				n--;
		}
		memcpy(buf, t, n);
		buf[n] = '\0';
	}
	return MARROW_OK;
}
