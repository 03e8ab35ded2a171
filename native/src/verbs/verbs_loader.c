/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * dlopen/dlsym of libibverbs and libmlx5, once per process.
 */
#define _GNU_SOURCE /* dlvsym, dlinfo */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/marrow_common.h"
#include "verbs_loader.h"

static struct verbs_syms syms;
static pthread_once_t syms_once = PTHREAD_ONCE_INIT;

/* Copies with truncation; dst is always terminated. */
static void set_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Prefer the versioned symbol: libibverbs also exports IBVERBS_1.0 compat
 * versions of several of these names with other struct layouts. */
static void *sym(void *handle, const char *name, const char *version)
{
	void *p = dlvsym(handle, name, version);

	return p ? p : dlsym(handle, name);
}

/* Records the file a handle came from (symlinks resolved) and the version
 * suffix of its name: ".../libibverbs.so.1.14.44.0" -> "1.14.44.0". */
static void describe(void *handle, char *path, size_t path_len,
		     char *version, size_t version_len)
{
	struct link_map *lm = NULL;
	char real[PATH_MAX];
	const char *base, *v;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL || lm->l_name == NULL)
		return;
	if (realpath(lm->l_name, real) == NULL)
		set_str(real, sizeof(real), lm->l_name);
	set_str(path, path_len, real);
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	v = strstr(base, ".so.");
	if (v)
		set_str(version, version_len, v + 4);
}

static void *open_first(const char *const *names, char *err, size_t err_len)
{
	void *h = NULL;

	err[0] = '\0';
	for (; *names != NULL && h == NULL; names++) {
		h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
		if (h == NULL && err[0] == '\0') {
			const char *e = dlerror();

			set_str(err, err_len, e ? e : *names);
		}
	}
	return h;
}

#define RESOLVE(h, field, name, version)					\
	do {									\
		syms.field = (__typeof__(syms.field))sym(h, name, version);	\
		if (syms.field == NULL && missing == NULL)			\
			missing = name;						\
	} while (0)

/* MARROW_RDMA_CORE=model: the mlx5 model is libibverbs and libmlx5 at
 * once (docs/design/mlx5-model.md §1); "" otherwise. */
static char model_path[MARROW_VERBS_PATH_MAX];

static void load_ibverbs(void)
{
	const char *env = getenv("MARROW_IBVERBS_LIB");
	const char *names[] = { "libibverbs.so.1", "libibverbs.so", NULL };
	const char *env_names[] = { env, NULL };
	const char *model_names[] = { model_path, NULL };
	const char *missing = NULL;
	char why[200];
	void *h;
	int model = marrow_rdma_core_model(model_path, sizeof(model_path), why, sizeof(why));

	if (model < 0) {
		snprintf(syms.error, sizeof(syms.error), "%.250s", why);
		return;
	}
	if (model == 0)
		model_path[0] = '\0';
	h = open_first(model ? model_names : env && env[0] ? env_names : names, why, sizeof(why));
	if (h == NULL && model) {
		snprintf(syms.error, sizeof(syms.error),
			 "MARROW_RDMA_CORE=model: cannot load the mlx5 model %.120s [dlopen: %.200s]", model_path, why);
		return;
	}
	if (h == NULL) {
		snprintf(syms.error, sizeof(syms.error),
			 "%.64s not found: install rdma-core (ibverbs-providers) [dlopen: %.200s]",
			 env && env[0] ? env : "libibverbs.so.1", why);
		return;
	}
	syms.ibverbs_loaded = 1;
	describe(h, syms.ibverbs_path, sizeof(syms.ibverbs_path),
		 syms.ibverbs_version, sizeof(syms.ibverbs_version));

	RESOLVE(h, get_device_list, "ibv_get_device_list", "IBVERBS_1.1");
	RESOLVE(h, free_device_list, "ibv_free_device_list", "IBVERBS_1.1");
	RESOLVE(h, get_device_name, "ibv_get_device_name", "IBVERBS_1.1");
	RESOLVE(h, open_device, "ibv_open_device", "IBVERBS_1.1");
	RESOLVE(h, close_device, "ibv_close_device", "IBVERBS_1.1");
	RESOLVE(h, query_device, "ibv_query_device", "IBVERBS_1.1");
	RESOLVE(h, query_port, "ibv_query_port", "IBVERBS_1.1");
	if (missing != NULL) {
		snprintf(syms.error, sizeof(syms.error),
			 "%.200s lacks symbol %.40s: rdma-core too old or not libibverbs",
			 syms.ibverbs_path[0] ? syms.ibverbs_path : "libibverbs", missing);
		return;
	}

	/* The QP path: a missing one disables only marrow_mlx5_*. */
	RESOLVE(h, alloc_pd, "ibv_alloc_pd", "IBVERBS_1.1");
	RESOLVE(h, dealloc_pd, "ibv_dealloc_pd", "IBVERBS_1.1");
	RESOLVE(h, reg_mr, "ibv_reg_mr", "IBVERBS_1.1");
	RESOLVE(h, dereg_mr, "ibv_dereg_mr", "IBVERBS_1.1");
	RESOLVE(h, create_cq, "ibv_create_cq", "IBVERBS_1.1");
	RESOLVE(h, destroy_cq, "ibv_destroy_cq", "IBVERBS_1.1");
	RESOLVE(h, create_qp, "ibv_create_qp", "IBVERBS_1.1");
	RESOLVE(h, destroy_qp, "ibv_destroy_qp", "IBVERBS_1.1");
	RESOLVE(h, modify_qp, "ibv_modify_qp", "IBVERBS_1.1");
	RESOLVE(h, query_qp, "ibv_query_qp", "IBVERBS_1.1");
	RESOLVE(h, query_gid, "ibv_query_gid", "IBVERBS_1.1");
	/* Optional (RoCE MACs of routable GIDs on the DevX path). */
	syms.devx.create_ah = (__typeof__(syms.devx.create_ah))sym(h, "ibv_create_ah", "IBVERBS_1.1");
	syms.devx.destroy_ah = (__typeof__(syms.devx.destroy_ah))sym(h, "ibv_destroy_ah", "IBVERBS_1.1");
	if (missing != NULL)
		snprintf(syms.qp_error, sizeof(syms.qp_error),
			 "%.160s lacks symbol %.40s: rdma-core too old for the mlx5 QP path",
			 syms.ibverbs_path[0] ? syms.ibverbs_path : "libibverbs", missing);
}

#define DEVX_SYM(h, field, name, version) \
	(syms.devx.field = (__typeof__(syms.devx.field))sym(h, name, version))

/* DevX entry points (MLX5_1.7, the dma-buf umem MLX5_1.19); which one is
 * missing is decided by devx_fns_missing, so tests judge the same table. */
static void load_devx(void *h)
{
	DEVX_SYM(h, open_device, "mlx5dv_open_device", "MLX5_1.7");
	DEVX_SYM(h, umem_reg, "mlx5dv_devx_umem_reg", "MLX5_1.7");
	DEVX_SYM(h, umem_reg_ex, "mlx5dv_devx_umem_reg_ex", "MLX5_1.19");
	DEVX_SYM(h, umem_dereg, "mlx5dv_devx_umem_dereg", "MLX5_1.7");
	DEVX_SYM(h, alloc_uar, "mlx5dv_devx_alloc_uar", "MLX5_1.7");
	DEVX_SYM(h, free_uar, "mlx5dv_devx_free_uar", "MLX5_1.7");
	DEVX_SYM(h, obj_create, "mlx5dv_devx_obj_create", "MLX5_1.7");
	DEVX_SYM(h, obj_modify, "mlx5dv_devx_obj_modify", "MLX5_1.7");
	DEVX_SYM(h, obj_query, "mlx5dv_devx_obj_query", "MLX5_1.7");
	DEVX_SYM(h, obj_destroy, "mlx5dv_devx_obj_destroy", "MLX5_1.7");
	DEVX_SYM(h, query_eqn, "mlx5dv_devx_query_eqn", "MLX5_1.7");
	DEVX_SYM(h, general_cmd, "mlx5dv_devx_general_cmd", "MLX5_1.7");
	DEVX_SYM(h, init_obj, "mlx5dv_init_obj", "MLX5_1.2");
}

/* libmlx5 is optional here: the probe only asks whether a device is mlx5. */
static void load_mlx5(void)
{
	const char *names[] = { "libmlx5.so.1", "libmlx5.so", NULL };
	const char *model_names[] = { model_path, NULL };
	char why[200];
	void *h = open_first(model_path[0] ? model_names : names, why, sizeof(why));

	if (h == NULL)
		return;
	syms.mlx5_loaded = 1;
	describe(h, syms.mlx5_path, sizeof(syms.mlx5_path),
		 syms.mlx5_version, sizeof(syms.mlx5_version));
	syms.mlx5dv_is_supported = (__typeof__(syms.mlx5dv_is_supported))
		sym(h, "mlx5dv_is_supported", "MLX5_1.8");
	/* MLX5_1.2 is the current layout; MLX5_1.0 is a compat alias. */
	syms.mlx5dv_init_obj = (__typeof__(syms.mlx5dv_init_obj))
		sym(h, "mlx5dv_init_obj", "MLX5_1.2");
	load_devx(h);
}

static void load_once(void)
{
	load_ibverbs();
	if (syms.ibverbs_loaded)
		load_mlx5();
	if (syms.qp_error[0] == '\0' && syms.error[0] == '\0') {
		if (!syms.mlx5_loaded)
			snprintf(syms.qp_error, sizeof(syms.qp_error),
				 "libmlx5.so.1 not found: install ibverbs-providers (rdma-core)");
		else if (syms.mlx5dv_init_obj == NULL)
			snprintf(syms.qp_error, sizeof(syms.qp_error),
				 "%.160s lacks mlx5dv_init_obj: rdma-core too old",
				 syms.mlx5_path[0] ? syms.mlx5_path : "libmlx5");
	}
	if (syms.qp_error[0] != '\0' || syms.error[0] != '\0') {
		snprintf(syms.devx_error, sizeof(syms.devx_error), "%.250s",
			 syms.error[0] ? syms.error : syms.qp_error);
	} else {
		const char *missing = devx_fns_missing(&syms.devx);

		if (missing[0] != '\0')
			snprintf(syms.devx_error, sizeof(syms.devx_error),
				 "DevX unavailable: %.160s lacks %.40s (rdma-core too old)",
				 syms.mlx5_path[0] ? syms.mlx5_path : "libmlx5", missing);
	}
	/* Handles stay open for the life of the process, like every
	 * dlopen-based rdma-core user: device lists may outlive a probe. */
}

const struct verbs_syms *verbs_syms_get(void)
{
	pthread_once(&syms_once, load_once);
	return &syms;
}

int verbs_require(const struct verbs_syms **out)
{
	const struct verbs_syms *s = verbs_syms_get();

	*out = s;
	if (s->error[0] != '\0')
		return marrow_fail(MARROW_ENODEV, "%s", s->error);
	return MARROW_OK;
}

int verbs_require_qp(const struct verbs_syms **out)
{
	int rc = verbs_require(out);

	if (rc)
		return rc;
	if ((*out)->qp_error[0] != '\0')
		return marrow_fail(MARROW_ENODEV, "%s", (*out)->qp_error);
	return MARROW_OK;
}

int verbs_require_devx(const struct verbs_syms **out)
{
	int rc = verbs_require_qp(out);

	if (rc)
		return rc;
	if ((*out)->devx_error[0] != '\0')
		return marrow_fail(MARROW_ENODEV, "%s", (*out)->devx_error);
	return MARROW_OK;
}
