/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_verbs_probe and marrow_verbs_device_info.
 */
#define _DEFAULT_SOURCE /* be64toh */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/marrow_common.h"
#include "verbs_loader.h"

#define UVERBS_DIR "/dev/infiniband"

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* Why a loaded libibverbs lists no device: the usual causes differ in what
 * /dev/infiniband holds, so name what we see there. */
static const char *no_device_reason(void)
{
	DIR *d = opendir(UVERBS_DIR);
	struct dirent *e;
	int uverbs = 0;

	if (d == NULL)
		return UVERBS_DIR " does not exist: no RDMA NIC, or the ib_uverbs module "
		       "is not loaded";
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "uverbs", 6) == 0)
			uverbs++;
	closedir(d);
	if (uverbs == 0)
		return UVERBS_DIR " has no uverbs*";
	return UVERBS_DIR " has uverbs* but no provider claimed them: install ibverbs-providers";
}

static int is_mlx5(const struct verbs_syms *s, struct ibv_device *dev)
{
	const char *name;

	if (s->mlx5dv_is_supported != NULL)
		return s->mlx5dv_is_supported(dev) ? 1 : 0;
	/* No libmlx5: best effort on the kernel's default name mlx5_<n>
	 * (udev renaming, e.g. rocep1s0f0, defeats it). */
	name = s->get_device_name(dev);
	return name != NULL && strncmp(name, "mlx5", 4) == 0;
}

static int check_size(uint32_t size, size_t need, const char *fn)
{
	if (size < need)
		return marrow_fail(MARROW_EINVAL, "%s: out->size %u < sizeof %zu", fn, size, need);
	return MARROW_OK;
}

/* Lists the devices, or fails with ENODEV naming why there are none.
 * libibverbs answers NULL (errno set) rather than an empty list when the
 * kernel exposes no verbs class at all; both mean "no device" here. */
static int device_list(const struct verbs_syms *s, struct ibv_device ***list, int *n)
{
	char what[96];

	*n = 0;
	errno = 0;
	*list = s->get_device_list(n);
	if (*list != NULL && *n > 0)
		return MARROW_OK;
	if (*list == NULL) {
		int err = errno ? errno : ENODEV;

		/* ENOSYS: libibverbs found no uverbs ABI under /sys/class. */
		snprintf(what, sizeof(what), "ibv_get_device_list returned NULL: %s",
			 err == ENOSYS ? "ENOSYS, kernel exposes no uverbs ABI" : strerror(err));
	} else {
		s->free_device_list(*list);
		snprintf(what, sizeof(what), "ibv_get_device_list returned 0 devices");
	}
	*list = NULL;
	*n = 0;
	return marrow_fail(MARROW_ENODEV, "libibverbs loaded but no RDMA device found (%s; %s)",
			   what, no_device_reason());
}

MARROW_API int marrow_verbs_probe(struct marrow_verbs_probe_info *out)
{
	const struct verbs_syms *s;
	struct ibv_device **list;
	int rc, n;

	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_verbs_probe: NULL out");
	rc = check_size(out->size, sizeof(*out), "marrow_verbs_probe");
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);

	rc = verbs_require(&s);
	out->libibverbs_loaded = s->ibverbs_loaded;
	out->libmlx5_loaded = s->mlx5_loaded;
	copy_str(out->libibverbs_path, sizeof(out->libibverbs_path), s->ibverbs_path);
	copy_str(out->libibverbs_version, sizeof(out->libibverbs_version), s->ibverbs_version);
	copy_str(out->libmlx5_path, sizeof(out->libmlx5_path), s->mlx5_path);
	copy_str(out->libmlx5_version, sizeof(out->libmlx5_version), s->mlx5_version);
	if (rc)
		return rc;

	rc = device_list(s, &list, &n);
	if (rc)
		return rc;
	out->device_count = n;
	copy_str(out->first_device, sizeof(out->first_device), s->get_device_name(list[0]));
	for (int i = 0; i < n; i++)
		out->mlx5_device_count += is_mlx5(s, list[i]);
	s->free_device_list(list);
	marrow_clear_error();
	return MARROW_OK;
}

/* Opens, queries and closes one device. */
static int query_one(const struct verbs_syms *s, struct ibv_device *dev,
		     struct marrow_verbs_device_info *out)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_context *ctx;
	int err;

	errno = 0;
	ctx = s->open_device(dev);
	if (ctx == NULL) {
		err = errno ? errno : EIO;
		return marrow_fail(err == EACCES || err == EPERM ? MARROW_EPERM : MARROW_EIO,
				   "ibv_open_device(%s) failed: %s", out->name, strerror(err));
	}
	memset(&da, 0, sizeof(da));
	err = s->query_device(ctx, &da);
	if (err) {
		s->close_device(ctx);
		return marrow_fail(MARROW_EIO, "ibv_query_device(%s) failed: %s",
				   out->name, strerror(err));
	}
	out->node_guid = be64toh(da.node_guid);
	copy_str(out->fw_ver, sizeof(out->fw_ver), da.fw_ver);
	out->vendor_id = da.vendor_id;
	out->vendor_part_id = da.vendor_part_id;
	out->phys_port_cnt = da.phys_port_cnt;
	if (da.phys_port_cnt >= 1) {
		/* Full-size struct: the compat symbol fills only a prefix. */
		memset(&pa, 0, sizeof(pa));
		err = s->query_port(ctx, 1, &pa);
		if (err) {
			s->close_device(ctx);
			return marrow_fail(MARROW_EIO, "ibv_query_port(%s, 1) failed: %s",
					   out->name, strerror(err));
		}
		out->port1_state = pa.state;
		out->port1_link_layer = pa.link_layer;
		out->port1_active_mtu = pa.active_mtu;
		out->port1_lid = pa.lid;
	}
	s->close_device(ctx);
	return MARROW_OK;
}

MARROW_API int marrow_verbs_device_info(int index, struct marrow_verbs_device_info *out)
{
	const struct verbs_syms *s;
	struct ibv_device **list;
	int rc, n;

	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_verbs_device_info: NULL out");
	rc = check_size(out->size, sizeof(*out), "marrow_verbs_device_info");
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);

	rc = verbs_require(&s);
	if (rc)
		return rc;
	rc = device_list(s, &list, &n);
	if (rc)
		return rc;
	if (index < 0 || index >= n) {
		s->free_device_list(list);
		return marrow_fail(MARROW_ENOENT,
				   "marrow_verbs_device_info: index %d outside [0, %d)", index, n);
	}
	copy_str(out->name, sizeof(out->name), s->get_device_name(list[index]));
	out->is_mlx5 = is_mlx5(s, list[index]);
	rc = query_one(s, list[index], out);
	s->free_device_list(list);
	if (rc == MARROW_OK)
		marrow_clear_error();
	return rc;
}
