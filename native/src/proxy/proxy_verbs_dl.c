/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The proxy's own dlopen table for libibverbs: libmarrow_host.so must load
 * (and say "unavailable") on hosts without rdma-core, so it never links it.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_verbs.h"

#define PX_SYM(field, name)                                                                           \
	do {                                                                                         \
		*(void **)&f->field = dlsym(f->handle, name);                                        \
		if (f->field == NULL) {                                                              \
			rc = marrow_fail(MARROW_ENODEV, "%s lacks %s (rdma-core too old?)", path, name); \
			goto fail;                                                                   \
		}                                                                                    \
	} while (0)

int px_ibv_load(struct px_ibv *f, const char *path)
{
	char model[512], why[200];
	int rc, sel = marrow_rdma_core_model(model, sizeof(model), why, sizeof(why));

	memset(f, 0, sizeof(*f));
	if (sel < 0)
		return marrow_fail(MARROW_ENODEV, "verbs backend unavailable: %s", why);
	if (path == NULL && sel > 0)
		path = model; /* the mlx5 model (docs/design/mlx5-model.md §1) */
	if (path == NULL)
		path = getenv("MARROW_IBVERBS_LIB");
	if (path == NULL || path[0] == '\0')
		path = "libibverbs.so.1";
	f->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (f->handle == NULL) {
		const char *e = dlerror();

		return marrow_fail(MARROW_ENODEV, "verbs backend unavailable: cannot load %s (%s); install rdma-core "
				   "(libibverbs1) or use --nic softnic", path, e ? e : "unknown error");
	}
	PX_SYM(get_device_list, "ibv_get_device_list");
	PX_SYM(free_device_list, "ibv_free_device_list");
	PX_SYM(get_device_name, "ibv_get_device_name");
	PX_SYM(open_device, "ibv_open_device");
	PX_SYM(close_device, "ibv_close_device");
	PX_SYM(alloc_pd, "ibv_alloc_pd");
	PX_SYM(dealloc_pd, "ibv_dealloc_pd");
	PX_SYM(reg_mr, "ibv_reg_mr");
	PX_SYM(dereg_mr, "ibv_dereg_mr");
	PX_SYM(create_cq, "ibv_create_cq");
	PX_SYM(destroy_cq, "ibv_destroy_cq");
	PX_SYM(create_qp, "ibv_create_qp");
	PX_SYM(destroy_qp, "ibv_destroy_qp");
	PX_SYM(modify_qp, "ibv_modify_qp");
	PX_SYM(query_port, "ibv_query_port");
	PX_SYM(query_gid, "ibv_query_gid");
	PX_SYM(wc_status_str, "ibv_wc_status_str");
	return MARROW_OK;
fail:
	dlclose(f->handle);
	f->handle = NULL;
	return rc;
}

void px_ibv_unload(struct px_ibv *f)
{
	if (f->handle != NULL)
		dlclose(f->handle);
	f->handle = NULL;
}
