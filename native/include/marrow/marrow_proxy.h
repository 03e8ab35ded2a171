/* SPDX-License-Identifier: Apache-2.0
 * mini-proxy C ABI (placeholder until the mini-proxy transport lands). */
#ifndef MARROW_PROXY_H
#define MARROW_PROXY_H
#include "marrow/marrow_abi.h"
#endif
