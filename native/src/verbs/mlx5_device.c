/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_mlx5_device_open/close and memory registration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mlx5dv.h>
#include "common/marrow_common.h"
#include "marrow/marrow_verbs.h"
#include "mlx5_internal.h"
#include "verbs_loader.h"

#define GID_SCAN_MAX 256

static int mlx5_is_mlx5(const struct verbs_syms *s, struct ibv_device *dev)
{
	const char *name;

	if (s->mlx5dv_is_supported != NULL)
		return s->mlx5dv_is_supported(dev) ? 1 : 0;
	name = s->get_device_name(dev); /* kernel default name; renamed ports defeat it */
	return name != NULL && strncmp(name, "mlx5", 4) == 0;
}

/* "no device" answers carry the probe's own reason, so the two never
 * disagree about why a host has no usable NIC. */
static int mlx5_probe_first(void)
{
	struct marrow_verbs_probe_info pi;
	char why[400];
	int rc;

	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	rc = marrow_verbs_probe(&pi);
	if (rc) {
		snprintf(why, sizeof(why), "%s", marrow_last_error());
		return marrow_fail(rc, "marrow_mlx5_device_open: %s", why);
	}
	if (pi.mlx5_device_count == 0)
		return marrow_fail(MARROW_ENODEV,
				   "marrow_mlx5_device_open: %d RDMA device(s) (first %s) but none is driven "
				   "by mlx5: need a ConnectX NIC", pi.device_count, pi.first_device);
	return MARROW_OK;
}

/* Finds the device by name ("" = first mlx5) in list[0..n). */
static int mlx5_find(const struct verbs_syms *s, struct ibv_device **list, int n,
		     const char *want, struct ibv_device **out)
{
	char names[200] = "";
	size_t used = 0;

	for (int i = 0; i < n; i++) {
		const char *nm = s->get_device_name(list[i]);

		if (want[0] == '\0' ? mlx5_is_mlx5(s, list[i]) : strcmp(nm, want) == 0) {
			if (!mlx5_is_mlx5(s, list[i]))
				return marrow_fail(MARROW_EINVAL, "RDMA device %s is not driven by mlx5", want);
			*out = list[i];
			return MARROW_OK;
		}
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 i ? ", " : "", nm);
	}
	return marrow_fail(MARROW_ENOENT, "no RDMA device named '%s' (have: %s)", want, names);
}

/* RoCE v2 or not, from sysfs: verbs of this vintage have no portable call. */
static int mlx5_gid_is_v2(const char *dev, int port, int index)
{
	char path[256], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/types/%d",
		 dev, port, index);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return strncmp(buf, "RoCE v2", 7) == 0;
}

/* Picks (gid_index < 0) or checks the GID index for the port. */
static int mlx5_choose_gid(const struct verbs_syms *s, struct marrow_mlx5_device *d,
			   const struct ibv_port_attr *pa, int want)
{
	union ibv_gid gids[GID_SCAN_MAX]; /* 4 KiB of stack: a control call */
	int v2[GID_SCAN_MAX];
	int n = pa->gid_tbl_len < GID_SCAN_MAX ? pa->gid_tbl_len : GID_SCAN_MAX;
	int err;

	if (want >= 0) {
		if (want >= pa->gid_tbl_len)
			return marrow_fail(MARROW_EINVAL, "%s port %u: GID index %d outside [0, %d)",
					   d->name, d->port, want, pa->gid_tbl_len);
		d->gid_index = want;
		d->gid_roce_v2 = pa->link_layer == IBV_LINK_LAYER_ETHERNET && mlx5_gid_is_v2(d->name, d->port, want);
		return MARROW_OK;
	}
	if (pa->link_layer != IBV_LINK_LAYER_ETHERNET) {
		d->gid_index = 0; /* IB: subnet prefix + port GUID */
		return MARROW_OK;
	}
	for (int i = 0; i < n; i++) {
		err = s->query_gid(d->ctx, d->port, i, &gids[i]);
		if (err)
			memset(&gids[i], 0, sizeof(gids[i])); /* unpopulated entries fail */
		v2[i] = mlx5_gid_is_v2(d->name, d->port, i);
	}
	d->gid_index = mlx5_pick_gid(n, gids, v2);
	d->gid_roce_v2 = d->gid_index >= 0 && v2[d->gid_index];
	if (d->gid_index < 0)
		return marrow_fail(MARROW_EINVAL, "%s port %u (RoCE) has no populated GID: "
				   "give the netdev an IP address", d->name, d->port);
	return MARROW_OK;
}

static int mlx5_open_ctx(const struct verbs_syms *s, struct ibv_device *ibdev,
			 struct marrow_mlx5_device *d, int gid_index)
{
	struct ibv_port_attr pa;
	int err;

	/* DevX (GPU-resident queues) needs a context opened for it; verbs
	 * objects work on such a context too. Without it, verbs only. */
	if (s->devx_error[0] == '\0') {
		struct mlx5dv_context_attr da = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };

		errno = 0;
		d->ctx = s->devx.open_device(ibdev, &da);
		err = errno ? errno : EIO;
		d->devx = d->ctx != NULL;
		if (d->ctx == NULL)
			snprintf(d->devx_why, sizeof(d->devx_why), "mlx5dv_open_device(%.64s, DEVX) failed: errno %d (%.60s)%s",
				 d->name, err, strerror(err), err == EOPNOTSUPP || err == EPROTONOSUPPORT ?
				 ": kernel or firmware without DevX" : err == EPERM ? ": DevX needs more privilege" : "");
	} else {
		snprintf(d->devx_why, sizeof(d->devx_why), "%s", s->devx_error);
	}
	errno = 0;
	if (d->ctx == NULL)
		d->ctx = s->open_device(ibdev);
	if (d->ctx == NULL) {
		err = errno ? errno : EIO;
		return marrow_fail(mlx5_status_from_errno(err), "ibv_open_device(%s) failed: errno %d (%s)%s",
				   d->name, err, strerror(err),
				   err == EACCES || err == EPERM ? ": no access to /dev/infiniband/uverbs*" : "");
	}
	err = s->query_device(d->ctx, &d->dattr);
	if (err)
		return marrow_fail(MARROW_EIO, "ibv_query_device(%s) failed: errno %d (%s)", d->name, err,
				   strerror(err));
	if (d->port < 1 || d->port > d->dattr.phys_port_cnt)
		return marrow_fail(MARROW_EINVAL, "%s has ports 1..%u, not %u", d->name,
				   d->dattr.phys_port_cnt, d->port);
	memset(&pa, 0, sizeof(pa));
	err = s->query_port(d->ctx, d->port, &pa);
	if (err)
		return marrow_fail(MARROW_EIO, "ibv_query_port(%s, %u) failed: errno %d (%s)", d->name,
				   d->port, err, strerror(err));
	err = mlx5_choose_gid(s, d, &pa, gid_index);
	if (err)
		return err;
	errno = 0;
	d->pd = s->alloc_pd(d->ctx);
	if (d->pd == NULL) {
		err = errno ? errno : ENOMEM;
		return marrow_fail(mlx5_status_from_errno(err), "ibv_alloc_pd(%s) failed: errno %d (%s)",
				   d->name, err, strerror(err));
	}
	return MARROW_OK;
}

static void mlx5_free_dev(const struct verbs_syms *s, struct marrow_mlx5_device *d)
{
	if (d->pd)
		s->dealloc_pd(d->pd);
	if (d->ctx)
		s->close_device(d->ctx);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

MARROW_API int marrow_mlx5_device_open(struct marrow_mlx5_device_attr *attr,
				       struct marrow_mlx5_device **out)
{
	const struct verbs_syms *s;
	struct ibv_device **list = NULL, *ibdev = NULL;
	struct marrow_mlx5_device *d;
	int n = 0, rc;

	if (attr == NULL || out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_device_open: NULL argument");
	*out = NULL;
	if (attr->size < sizeof(*attr) || attr->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_device_open: size %u < %zu or comp_mask 0x%x != 0",
				   attr->size, sizeof(*attr), attr->comp_mask);
	if (memchr(attr->name, '\0', sizeof(attr->name)) == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_device_open: name not NUL-terminated");
	if (attr->port > 255 || attr->gid_index < -1 || attr->gid_index > 255)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_device_open: port %u or gid_index %d out of range",
				   attr->port, attr->gid_index);
	rc = mlx5_probe_first();
	if (rc == MARROW_OK)
		rc = verbs_require_qp(&s);
	if (rc)
		return rc;
	list = s->get_device_list(&n);
	if (list == NULL || n <= 0)
		return marrow_fail(MARROW_ENODEV, "marrow_mlx5_device_open: device list vanished (hot unplug?)");
	rc = mlx5_find(s, list, n, attr->name, &ibdev);
	d = rc ? NULL : calloc(1, sizeof(*d));
	if (rc == MARROW_OK && d == NULL)
		rc = marrow_fail(MARROW_ENOMEM, "marrow_mlx5_device_open: out of memory");
	if (rc) {
		s->free_device_list(list);
		return rc;
	}
	pthread_mutex_init(&d->lock, NULL);
	snprintf(d->name, sizeof(d->name), "%s", s->get_device_name(ibdev));
	d->port = (uint8_t)(attr->port ? attr->port : 1);
	rc = mlx5_open_ctx(s, ibdev, d, attr->gid_index);
	s->free_device_list(list); /* an opened context outlives the list */
	if (rc) {
		mlx5_free_dev(s, d);
		return rc;
	}
	snprintf(attr->name, sizeof(attr->name), "%s", d->name);
	attr->port = d->port;
	attr->gid_index = d->gid_index;
	*out = d;
	marrow_clear_error();
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_device_close(struct marrow_mlx5_device *d)
{
	const struct verbs_syms *s = verbs_syms_get();
	int qps, mrs;

	if (d == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_device_close: NULL device");
	pthread_mutex_lock(&d->lock);
	qps = d->n_qp;
	mrs = d->n_mr;
	pthread_mutex_unlock(&d->lock);
	if (qps || mrs)
		return marrow_fail(MARROW_EBUSY, "marrow_mlx5_device_close(%s): %d QP(s) and %d MR(s) still "
				   "exist; destroy them first", d->name, qps, mrs);
	mlx5_free_dev(s, d); /* PD, then the context */
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_mr_reg(struct marrow_mlx5_device *d, void *addr, uint64_t len,
				  uint32_t access, struct marrow_mlx5_mr **out,
				  uint32_t *lkey, uint32_t *rkey)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct marrow_mlx5_mr *m;
	int err;

	if (d == NULL || addr == NULL || out == NULL || lkey == NULL || rkey == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_mr_reg: NULL argument");
	if (len == 0 || (access & ~0xfu))
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_mr_reg: len %llu or access 0x%x invalid "
				   "(access: 1 LOCAL_WRITE | 2 REMOTE_WRITE | 4 REMOTE_READ | 8 REMOTE_ATOMIC)",
				   (unsigned long long)len, access);
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_mlx5_mr_reg: out of memory");
	/* Remote write/atomic require local write (verbs rule). */
	access |= IBV_ACCESS_LOCAL_WRITE;
	pthread_mutex_lock(&d->lock);
	errno = 0;
	m->mr = s->reg_mr(d->pd, addr, (size_t)len, (int)access);
	err = errno ? errno : ENOMEM;
	if (m->mr != NULL)
		d->n_mr++;
	pthread_mutex_unlock(&d->lock);
	if (m->mr == NULL) {
		free(m);
		return marrow_fail(mlx5_status_from_errno(err),
				   "ibv_reg_mr(%s, %p, %llu, 0x%x) failed: errno %d (%s)%s", d->name, addr,
				   (unsigned long long)len, access, err, strerror(err),
				   err == ENOMEM || err == EPERM ? ": check `ulimit -l` (locked memory)" : "");
	}
	m->dev = d;
	*lkey = m->mr->lkey;
	*rkey = m->mr->rkey;
	*out = m;
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_mr_dereg(struct marrow_mlx5_mr *m)
{
	const struct verbs_syms *s = verbs_syms_get();
	int err;

	if (m == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_mr_dereg: NULL MR");
	pthread_mutex_lock(&m->dev->lock);
	err = s->dereg_mr(m->mr);
	if (err == 0)
		m->dev->n_mr--;
	pthread_mutex_unlock(&m->dev->lock);
	if (err)
		return marrow_fail(mlx5_status_from_errno(err),
				   "ibv_dereg_mr(%s, lkey 0x%x) failed: errno %d (%s); a QP may still use it",
				   m->dev->name, m->mr->lkey, err, strerror(err));
	free(m);
	return MARROW_OK;
}
