/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The one formatter of watchdog dumps (marrow_dump.h, docs/design/watchdog.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "marrow/marrow_softnic.h"
#include "marrow/mlx5_wqe.h"
#include "marrow_common.h"
#include "marrow_dump.h"

void marrow_dump_init(struct marrow_dump *d)
{
	d->text[0] = '\0';
	d->len = 0;
}

void marrow_dump_kv(struct marrow_dump *d, const char *key, const char *fmt, ...)
{
	size_t cap = sizeof(d->text);
	va_list ap;
	int n;

	if (d->len + 2 >= cap)
		return;
	n = snprintf(d->text + d->len, cap - d->len, " %s=", key);
	if (n < 0 || (size_t)n >= cap - d->len) {
		d->text[d->len] = '\0';   /* no half pair */
		return;
	}
	va_start(ap, fmt);
	int m = vsnprintf(d->text + d->len + n, cap - d->len - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)(n + m) >= cap - d->len) {
		d->text[d->len] = '\0';
		return;
	}
	d->len += (size_t)(n + m);
}

const char *marrow_qp_state_name(int state)
{
	switch (state) {
	case MARROW_QPS_RESET: return "RESET";
	case MARROW_QPS_INIT: return "INIT";
	case MARROW_QPS_RTR: return "RTR";
	case MARROW_QPS_RTS: return "RTS";
	case MARROW_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

const char *marrow_cqe_opcode_name(unsigned opcode, char tmp[8])
{
	switch (opcode) {
	case MX_CQE_REQ: return "req";
	case MX_CQE_RESP_WR_IMM: return "resp_wr_imm";
	case MX_CQE_RESP_SEND: return "resp_send";
	case MX_CQE_REQ_ERR: return "req_err";
	case MX_CQE_RESP_ERR: return "resp_err";
	case MX_CQE_INVALID: return "invalid";
	default:
		snprintf(tmp, 8, "op%u", opcode & 0xfu);
		return tmp;
	}
}

unsigned marrow_cqe_error_syndrome(const void *cqe)
{
	uint8_t op = mx_cqe_opcode(cqe);

	return op == MX_CQE_REQ_ERR || op == MX_CQE_RESP_ERR ? mx_cqe_syndrome(cqe) : 0u;
}

static uint32_t ld_be32(const uint32_t *p)
{
	return mx_be32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

void marrow_dump_sq(struct marrow_dump *d, const struct marrow_dump_sq *sq)
{
	marrow_dump_kv(d, "qpn", "0x%x", sq->qpn);
	if (sq->has_pi)
		marrow_dump_kv(d, "sq_pi", "%u", sq->pi);
	if (sq->has_ci)
		marrow_dump_kv(d, "sq_ci", "%u", sq->ci);
	if (sq->dbrec != NULL)
		marrow_dump_kv(d, "dbr", "%u", ld_be32(&sq->dbrec[MX_DBR_SND]) & 0xffffu);
	if (sq->has_pi && sq->pi != 0)
		marrow_dump_kv(d, "last_db", "0x%016llx",
			       (unsigned long long)mx_doorbell_value((uint16_t)sq->pi, 0, sq->qpn, 0));
	else if (sq->has_pi)
		marrow_dump_kv(d, "last_db", "none");
	if (sq->qp_state != NULL)
		marrow_dump_kv(d, "qp_state", "%s", sq->qp_state);
}

void marrow_dump_cq(struct marrow_dump *d, const struct marrow_dump_cq *cq)
{
	char tmp[8];
	uint32_t n = 1u << cq->log_cnt, dbr_ci = 0, ci;

	if (cq->cqn != 0)
		marrow_dump_kv(d, "cqn", "0x%x", cq->cqn);
	if (cq->dbrec != NULL)
		dbr_ci = ld_be32(&cq->dbrec[0]) & 0xffffffu;
	ci = cq->has_ci ? cq->ci : dbr_ci;
	marrow_dump_kv(d, "cq_ci", "%u", ci);
	if (cq->dbrec != NULL)
		marrow_dump_kv(d, "cq_dbr_ci", "%u", dbr_ci);
	if (cq->buf == NULL)
		return;
	if (cq->collapsed || ci != 0) {
		const uint8_t *last = cq->buf + (cq->collapsed ? 0 : (size_t)((ci - 1u) & (n - 1u)) * MX_CQE_SIZE);
		uint8_t op = mx_cqe_opcode(last);
		if (op == MX_CQE_INVALID)
			marrow_dump_kv(d, "last_cqe", "invalid");
		else
			marrow_dump_kv(d, "last_cqe", "%s/0x%02x/%u", marrow_cqe_opcode_name(op, tmp),
				       marrow_cqe_error_syndrome(last), mx_cqe_wqe_counter(last));
	} else {
		marrow_dump_kv(d, "last_cqe", "none");
	}
	if (!cq->collapsed) {
		const uint8_t *next = cq->buf + (size_t)(ci & (n - 1u)) * MX_CQE_SIZE;
		uint8_t op = mx_cqe_opcode(next);
		if (op == MX_CQE_INVALID)
			marrow_dump_kv(d, "next_cqe", "invalid");
		else
			marrow_dump_kv(d, "next_cqe", "%s/owner%u/%u", marrow_cqe_opcode_name(op, tmp),
				       mx_cqe_owner(next), mx_cqe_wqe_counter(next));
	}
}

int marrow_fail_dump(int status, const struct marrow_dump *d)
{
	return marrow_fail_append(status, "%s%s", MARROW_DUMP_MARK, d->text);
}
