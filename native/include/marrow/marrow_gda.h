/* SPDX-License-Identifier: Apache-2.0
 * mini-gda C ABI (placeholder until the mini-gda transport lands). */
#ifndef MARROW_GDA_H
#define MARROW_GDA_H
#include "marrow/marrow_abi.h"
#endif
