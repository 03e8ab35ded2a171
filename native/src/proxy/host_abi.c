/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * ABI layout table of libmarrow_host.so: the mini-gda CPU executor's and
 * the mini-proxy's shared structs, each listed by its owner's .inc file. */
#include <stddef.h>
#include "common/marrow_common.h"
#include "marrow/marrow_gda.h"
#include "marrow/marrow_gda_rate.h"
#include "marrow/marrow_gda_goodput.h"
#include "marrow/marrow_gda_loaded.h"
#include "marrow/marrow_proxy.h"
#include "marrow/marrow_proxy_loaded.h"

const struct marrow_abi_entry marrow_abi_table[] = {
#include "gda/gda_abi.inc"
#include "gda/gda_rate_abi.inc"
#include "gda/gda_goodput_abi.inc"
#include "gda/gda_loaded_abi.inc"
#include "proxy/proxy_abi.inc"
#include "proxy/proxy_loaded_abi.inc"
	MARROW_ABI_END
};
