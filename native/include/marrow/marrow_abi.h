/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The C ABI that Java binds to. Conventions shared by every libmarrow_*.so:
 *
 *  - every entry point returns int: 0 (MARROW_OK) or a negative status below;
 *  - on failure the library fills a thread-local message readable with
 *    its marrow_<library>_last_error() (below) until the next failing call
 *    on the same thread;
 *  - structs shared with Java start with {uint32_t size; uint32_t comp_mask}
 *    and their sizes/offsets are exported through marrow_abi_query() so the
 *    Java loader can refuse to run on a mismatch (DiSNI-style handshake).
 *
 * Each library exports the functions below under the same names; Java looks
 * them up per library handle (dlopen RTLD_LOCAL). The error message is the
 * exception: each library keeps its own buffer, and a C program that links
 * two libraries sees only one definition of a shared name, so each exports
 * it under its own. Which
 * fact lives where, and where a new struct or status code goes:
 * docs/design/architecture.md §3-4.
 */
#ifndef MARROW_ABI_H
#define MARROW_ABI_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MARROW_API __attribute__((visibility("default")))

/* Bumped on any change of a shared struct or an exported signature. */
#define MARROW_ABI_VERSION 1

enum marrow_status {
	MARROW_OK = 0,
	MARROW_EPERM = -1,        /* not permitted (e.g. PeerMappingOverride missing) */
	MARROW_ENOENT = -2,       /* no such object/key */
	MARROW_EIO = -5,          /* error completion / device error */
	MARROW_ENOMEM = -12,
	MARROW_EBUSY = -16,       /* object still in use */
	MARROW_ENODEV = -19,      /* no device of this kind */
	MARROW_EINVAL = -22,      /* bad argument or impossible configuration */
	MARROW_ENOSPC = -28,      /* ring/queue full */
	MARROW_ERANGE = -34,      /* value out of range (e.g. inline too long) */
	MARROW_ENOSYS = -38,      /* not built into this library */
	MARROW_EPROTO = -71,      /* malformed input (WQE, descriptor, peer message) */
	MARROW_ETIMEDOUT = -110,  /* a bounded wait expired */
	MARROW_ECONNRESET = -104, /* peer went away */
};

/* The SQ size of every QP Marrow creates, as log2 of its WQEBBs (the
 * --log-sq of every command, on every backend; verbs is asked for the
 * matching max_send_wr, mx_send_wr_for_wqebbs in mlx5_wqe.h). */
enum {
	MARROW_LOG_SQ_MIN = 1,
	MARROW_LOG_SQ_MAX = 15,
};

/* The exports below are one per library, named marrow_<library>_<name>
 * (library: emu, host, verbs, cuda): each answers for its own library. A
 * program linking two libraries would otherwise be bound by the dynamic
 * linker to the first library's copy of a shared name, and read that
 * library's layout table, version or message. Inside the libraries (and in
 * the static test archives) the unprefixed names below are the same
 * functions; they are not exported. */

/* MARROW_OK when log_sq is in MARROW_LOG_SQ_MIN..MAX; else MARROW_EINVAL
 * with the allowed range in marrow_last_error().
 * Exported as marrow_<library>_check_log_sq. */
int marrow_check_log_sq(uint32_t log_sq);

/* ABI version this library was built with. Never fails.
 * Exported as marrow_<library>_abi_version. */
int marrow_abi_version(void);

/* Thread-local message describing the last failure on this thread of a
 * call into that library ("" if none). The pointer stays valid until the
 * next failing call into the same library on the thread. One per library,
 * each over its own buffer: libmarrow_emu, libmarrow_host (gda executor,
 * proxy), libmarrow_verbs, libmarrow_cuda. (Inside the libraries and in the
 * static test archives, marrow_last_error() of common/marrow_common.h.) */
MARROW_API const char *marrow_emu_last_error(void);
MARROW_API const char *marrow_host_last_error(void);
MARROW_API const char *marrow_verbs_last_error(void);
MARROW_API const char *marrow_cuda_last_error(void);

/* Layout and constant handshake. key is "sizeof:<struct>",
 * "offsetof:<struct>.<field>", "sizeof:<struct>.<field>" (the field's size) or
 * "const:<NAME>" (an enum value or #define of the C headers, by its C name:
 * every status code below, and each library's own enums);
 * *out receives the value. Returns MARROW_ENOENT for an unknown key.
 * Exported as marrow_<library>_abi_query, over that library's own table. */
int marrow_abi_query(const char *key, int64_t *out);

/* Human name of a status code ("EINVAL", ...). Never fails. */
const char *marrow_status_name(int status);

/* The exported names of each library (the functions above, and its
 * marrow_<library>_last_error). */
#define MARROW_ABI_EXPORTS(lib)                                                  \
	MARROW_API int marrow_##lib##_check_log_sq(uint32_t log_sq);             \
	MARROW_API int marrow_##lib##_abi_version(void);                         \
	MARROW_API int marrow_##lib##_abi_query(const char *key, int64_t *out);  \
	MARROW_API const char *marrow_##lib##_status_name(int status);
MARROW_ABI_EXPORTS(emu)
MARROW_ABI_EXPORTS(host)
MARROW_ABI_EXPORTS(verbs)
MARROW_ABI_EXPORTS(cuda)

#ifdef __cplusplus
}
#endif

#endif /* MARROW_ABI_H */
