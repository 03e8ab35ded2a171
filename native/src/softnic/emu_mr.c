/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Protection domains and memory regions. MRs live in a flat table indexed by
 * key >> 8 so the engine checks a key with one load; the low 8 bits are a
 * per-slot variant that changes on every registration, so a stale key of a
 * deregistered MR never matches the slot's next user (mlx5 mkey style).
 */
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

#define EMU_ACCESS_ALL (MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE | \
			MARROW_ACCESS_REMOTE_READ | MARROW_ACCESS_REMOTE_ATOMIC)

int emu_pd_check(const struct marrow_emu_pd *pd, const char *fn)
{
	if (pd == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: pd is NULL", fn);
	if (pd->magic != EMU_MAGIC_PD)
		return marrow_fail(MARROW_EINVAL, "%s: not a live softnic PD (bad magic 0x%08x)", fn,
				   pd->magic);
	return MARROW_OK;
}

MARROW_API int marrow_emu_pd_alloc(struct marrow_emu_device *dev, struct marrow_emu_pd **out)
{
	struct marrow_emu_pd *pd;
	int rc = emu_dev_check(dev, "marrow_emu_pd_alloc");

	if (rc)
		return rc;
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_pd_alloc: out is NULL");
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_emu_pd_alloc: out of memory");
	pd->magic = EMU_MAGIC_PD;
	pd->dev = dev;
	pthread_mutex_lock(&dev->ctl_lock);
	pd->pdn = dev->next_pdn++;
	dev->n_pd++;
	pthread_mutex_unlock(&dev->ctl_lock);
	*out = pd;
	return MARROW_OK;
}

MARROW_API int marrow_emu_pd_free(struct marrow_emu_pd *pd)
{
	struct marrow_emu_device *dev;
	int rc = emu_pd_check(pd, "marrow_emu_pd_free");

	if (rc)
		return rc;
	dev = pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	if (pd->n_mr || pd->n_qp) {
		rc = marrow_fail(MARROW_EBUSY,
				 "marrow_emu_pd_free: PD 0x%x still has %u MR(s) and %u QP(s); destroy them first",
				 pd->pdn, pd->n_mr, pd->n_qp);
		pthread_mutex_unlock(&dev->ctl_lock);
		return rc;
	}
	dev->n_pd--;
	pthread_mutex_unlock(&dev->ctl_lock);
	pd->magic = EMU_MAGIC_DEAD;
	free(pd);
	return MARROW_OK;
}

/* Doubles the MR table; the engine reads it, so it must be parked. */
static int grow_mr_table(struct marrow_emu_device *dev)
{
	uint32_t cap = dev->mr_cap * 2;
	struct emu_mr_slot *mrs;
	uint8_t *var;

	if (cap > EMU_MAX_MR_INDEX)
		return marrow_fail(MARROW_ENOMEM, "marrow_emu_mr_reg: MR table full (%u regions)",
				   dev->mr_cap - 1);
	mrs = calloc(cap, sizeof(*mrs));
	var = calloc(cap, 1);
	if (mrs == NULL || var == NULL) {
		free(mrs);
		free(var);
		return marrow_fail(MARROW_ENOMEM, "marrow_emu_mr_reg: out of memory");
	}
	memcpy(mrs, dev->mrs, dev->mr_cap * sizeof(*mrs));
	memcpy(var, dev->mr_variant, dev->mr_cap);
	emu_quiesce(dev);
	free(dev->mrs);
	dev->mrs = mrs;
	dev->mr_cap = cap;
	emu_unquiesce(dev);
	free(dev->mr_variant);
	dev->mr_variant = var;
	return MARROW_OK;
}

static int find_free_slot(struct marrow_emu_device *dev, uint32_t *idx)
{
	for (;;) {
		/* Circular scan from the last hand-out; slot 0 stays unused so
		 * that no key is below 0x100. */
		for (uint32_t n = 0; n < dev->mr_cap; n++) {
			uint32_t i = (dev->mr_hint + n) % dev->mr_cap;

			if (i != 0 && dev->mrs[i].key == 0) {
				*idx = i;
				dev->mr_hint = i + 1;
				return MARROW_OK;
			}
		}
		int rc = grow_mr_table(dev);

		if (rc)
			return rc;
	}
}

MARROW_API int marrow_emu_mr_reg(struct marrow_emu_pd *pd, void *addr, uint64_t len,
				 uint32_t access, struct marrow_emu_mr **out,
				 uint32_t *lkey, uint32_t *rkey)
{
	const char *fn = "marrow_emu_mr_reg";
	struct marrow_emu_device *dev;
	struct marrow_emu_mr *mr;
	struct emu_mr_slot *s;
	uint32_t idx, key;
	uint8_t v;
	int rc = emu_pd_check(pd, fn);

	if (rc)
		return rc;
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: out is NULL", fn);
	if (addr == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: addr is NULL", fn);
	if (len == 0)
		return marrow_fail(MARROW_EINVAL, "%s: len is 0", fn);
	if ((uint64_t)(uintptr_t)addr + len < (uint64_t)(uintptr_t)addr)
		return marrow_fail(MARROW_EINVAL, "%s: [%p, +%llu) wraps the address space", fn, addr,
				   (unsigned long long)len);
	if (access & ~(uint32_t)EMU_ACCESS_ALL)
		return marrow_fail(MARROW_EINVAL, "%s: unknown access bits 0x%x", fn,
				   access & ~(uint32_t)EMU_ACCESS_ALL);
	if ((access & (MARROW_ACCESS_REMOTE_WRITE | MARROW_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & MARROW_ACCESS_LOCAL_WRITE))
		return marrow_fail(MARROW_EINVAL,
				   "%s: REMOTE_WRITE/REMOTE_ATOMIC require LOCAL_WRITE (as in ibv_reg_mr)", fn);
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);

	dev = pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	rc = find_free_slot(dev, &idx);
	if (rc) {
		pthread_mutex_unlock(&dev->ctl_lock);
		free(mr);
		return rc;
	}
	v = (uint8_t)(dev->mr_variant[idx] + 1);
	if (v == 0)
		v = 1;   /* variant 0 never used: 0x100 is MLX5_INVALID_LKEY */
	dev->mr_variant[idx] = v;
	key = (idx << 8) | v;
	s = &dev->mrs[idx];
	s->base = (uint64_t)(uintptr_t)addr;
	s->len = len;
	s->pd = pd;
	s->access = access;
	/* The engine matches the key first (acquire), so publish it last. */
	__atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
	pd->n_mr++;
	pthread_mutex_unlock(&dev->ctl_lock);

	mr->magic = EMU_MAGIC_MR;
	mr->index = idx;
	mr->key = key;
	mr->pd = pd;
	*out = mr;
	if (lkey)
		*lkey = key;
	if (rkey)
		*rkey = key;
	return MARROW_OK;
}

MARROW_API int marrow_emu_mr_dereg(struct marrow_emu_mr *mr)
{
	struct marrow_emu_device *dev;

	if (mr == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_mr_dereg: mr is NULL");
	if (mr->magic != EMU_MAGIC_MR)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_mr_dereg: not a live softnic MR (bad magic 0x%08x)",
				   mr->magic);
	dev = mr->pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	/* Park the engine so no WQE is half-way through a copy into it. */
	emu_quiesce(dev);
	memset(&dev->mrs[mr->index], 0, sizeof(dev->mrs[mr->index]));
	emu_unquiesce(dev);
	mr->pd->n_mr--;
	pthread_mutex_unlock(&dev->ctl_lock);
	mr->magic = EMU_MAGIC_DEAD;
	free(mr);
	return MARROW_OK;
}
