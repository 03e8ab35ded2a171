/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Completion queues: a ring of CQE64s in page-aligned host memory plus a
 * 2 x BE32 doorbell record, and the one function that writes CQEs. Formats:
 * docs/design/mlx5-queue-formats.md §4; behaviour: docs/design/software-nic.md §7-8.
 *
 * Owner bit: the CQE with absolute producer count p goes to slot p & (N-1)
 * with owner (p >> log_n) & 1, so a poller with free-running ci checks
 * mx_cqe_is_valid(cqe, ci, log_n).
 *
 * Collapsed CQ (cc = 1): every CQE goes to slot 0. Its owner bit is still
 * (p >> log_n) & 1 for the logical count p, i.e. it toggles once per N CQEs.
 * Hardware behaviour here is undocumented, so pollers of a collapsed CQ
 * should rely on opcode != INVALID and wqe_counter only (as NVSHMEM does).
 *
 * Overrun (oi = 0): a CQE whose count p is N or more ahead of the consumer
 * index in dbrec word 0 (low 24 bits) puts the CQ in error instead of being
 * written; from then on the CQ drops every CQE (marrow_emu_cq_status). The
 * same rule applies to collapsed CQs. QPs using the CQ keep their state.
 */
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

int emu_cq_check(const struct marrow_emu_cq *cq, const char *fn)
{
	if (cq == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: cq is NULL", fn);
	if (cq->magic != EMU_MAGIC_CQ)
		return marrow_fail(MARROW_EINVAL, "%s: not a live softnic CQ (bad magic 0x%08x)", fn,
				   cq->magic);
	return MARROW_OK;
}

const char *emu_syndrome_name(uint8_t synd)
{
	return mx_syndrome_name(synd);
}

MARROW_API int marrow_emu_cq_create(struct marrow_emu_device *dev,
				    const struct marrow_emu_cq_attr *attr,
				    struct marrow_emu_cq **out, struct marrow_cq_view *view)
{
	const char *fn = "marrow_emu_cq_create";
	struct marrow_emu_cq *cq;
	uint32_t n;
	int rc = emu_dev_check(dev, fn);

	if (rc)
		return rc;
	if (attr == NULL || out == NULL || view == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: attr, out and view must not be NULL", fn);
	if (attr->size != sizeof(*attr))
		return marrow_fail(MARROW_EINVAL, "%s: attr->size %u != sizeof(struct marrow_emu_cq_attr) %zu",
				   fn, attr->size, sizeof(*attr));
	if (attr->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "%s: attr->comp_mask 0x%x: no extensions are defined", fn,
				   attr->comp_mask);
	if (attr->log_cqe_cnt > 16)
		return marrow_fail(MARROW_EINVAL, "%s: log_cqe_cnt %u out of range 0..16", fn,
				   attr->log_cqe_cnt);
	if (attr->flags & ~(uint32_t)(MARROW_EMU_CQ_COLLAPSED | MARROW_EMU_CQ_OVERRUN_IGNORE))
		return marrow_fail(MARROW_EINVAL, "%s: unknown flags 0x%x", fn, attr->flags);

	n = 1u << attr->log_cqe_cnt;
	if (posix_memalign((void **)&cq, 64, sizeof(*cq)) != 0)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	memset(cq, 0, sizeof(*cq));
	cq->buf = emu_alloc_pages((size_t)n * MX_CQE_SIZE, NULL);
	cq->dbrec = emu_alloc_pages(8, NULL);
	if (cq->buf == NULL || cq->dbrec == NULL) {
		emu_free_pages(cq->buf);
		emu_free_pages(cq->dbrec);
		free(cq);
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory for %u CQEs", fn, n);
	}
	for (uint32_t i = 0; i < n; i++)
		cq->buf[(size_t)i * MX_CQE_SIZE + MX_CQE_OFF_OP_OWN] = MX_CQE_OP_OWN_INIT;
	cq->log_n = attr->log_cqe_cnt;
	cq->mask = n - 1;
	cq->flags = attr->flags;
	cq->magic = EMU_MAGIC_CQ;
	cq->dev = dev;
	cq->multi_writer = dev->nthreads > 1;

	pthread_mutex_lock(&dev->ctl_lock);
	cq->cqn = dev->next_cqn++ & 0xffffff;
	dev->n_cq++;
	pthread_mutex_unlock(&dev->ctl_lock);

	memset(view, 0, sizeof(*view));
	view->size = sizeof(*view);
	view->cqn = cq->cqn;
	view->cqe_cnt = n;
	view->cqe_size = MX_CQE_SIZE;
	view->flags = cq->flags;
	view->buf = cq->buf;
	view->dbrec = cq->dbrec;
	*out = cq;
	return MARROW_OK;
}

MARROW_API int marrow_emu_cq_destroy(struct marrow_emu_cq *cq)
{
	struct marrow_emu_device *dev;
	int rc = emu_cq_check(cq, "marrow_emu_cq_destroy");

	if (rc)
		return rc;
	dev = cq->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	if (cq->refcnt) {
		rc = marrow_fail(MARROW_EBUSY, "marrow_emu_cq_destroy: CQ 0x%x is used by %u live QP(s); destroy them first",
				 cq->cqn, cq->refcnt);
		pthread_mutex_unlock(&dev->ctl_lock);
		return rc;
	}
	dev->n_cq--;
	pthread_mutex_unlock(&dev->ctl_lock);
	cq->magic = EMU_MAGIC_DEAD;
	emu_free_pages(cq->buf);
	emu_free_pages(cq->dbrec);
	free(cq);
	return MARROW_OK;
}

MARROW_API int marrow_emu_cq_status(struct marrow_emu_cq *cq, int *in_error)
{
	int rc = emu_cq_check(cq, "marrow_emu_cq_status");

	if (rc)
		return rc;
	if (in_error == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_cq_status: in_error is NULL");
	*in_error = (int)__atomic_load_n(&cq->in_error, __ATOMIC_ACQUIRE);
	return MARROW_OK;
}

/* count_cqe and emu_cqe_post, the one function that writes CQEs, are in
 * emu_exec_core.h (shared with the device engine). */
