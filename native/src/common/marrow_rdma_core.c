/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Which rdma-core Marrow loads: the system's libibverbs/libmlx5, or the
 * mlx5 model (libmarrow_mlx5model.so, docs/design/mlx5-model.md §1). One
 * rule for every library that dlopens rdma-core (libmarrow_verbs: the
 * mlx5 QPs and DevX; libmarrow_host: the proxy's verbs backend).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "marrow_common.h"

#define MODEL_LIB "libmarrow_mlx5model.so"

int marrow_rdma_core_model(char *path, size_t len, char *why, size_t why_len)
{
	const char *sel = getenv("MARROW_RDMA_CORE");
	const char *lib = getenv("MARROW_MLX5MODEL_LIB");
	Dl_info info;

	why[0] = '\0';
	if (sel == NULL || sel[0] == '\0' || strcmp(sel, "system") == 0)
		return 0;
	if (strcmp(sel, "model") != 0) {
		snprintf(why, why_len, "MARROW_RDMA_CORE=%.40s: use 'system' (the host's rdma-core) or 'model' "
			 "(the mlx5 model, no NIC)", sel);
		return -1;
	}
	if (lib != NULL && lib[0] != '\0') {
		snprintf(path, len, "%s", lib);
		return 1;
	}
	/* Next to the library (or test program) this code is linked into:
	 * the staged set and the build directory both hold it there. */
	if (dladdr((void *)marrow_rdma_core_model, &info) != 0 && info.dli_fname != NULL &&
	    strrchr(info.dli_fname, '/') != NULL) {
		int dir = (int)(strrchr(info.dli_fname, '/') - info.dli_fname);

		snprintf(path, len, "%.*s/%s", dir, info.dli_fname, MODEL_LIB);
	} else {
		snprintf(path, len, "%s", MODEL_LIB);
	}
	return 1;
}
