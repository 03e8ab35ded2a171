/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * A C program linked against two Marrow libraries (libmarrow_emu.so and
 * libmarrow_host.so, the shared objects, not the test archives): a failing
 * call into each leaves its message in that library's buffer, read with
 * that library's marrow_<library>_last_error() (marrow_abi.h). With one
 * exported name for every library, the dynamic linker bound the program to
 * the first library's copy: after a failing host call the program read
 * emu's (empty) message. The same holds for the layout query, the ABI
 * version, the SQ-size check and the status names (marrow_<library>_abi_query
 * ...): each library answers from its own table. The names are looked up with dlsym so that the
 * program also builds against libraries that lack them, and says so.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "marrow/marrow_gda.h"
#include "marrow/marrow_softnic.h"

typedef const char *(*err_fn)(void);
typedef int (*query_fn)(const char *key, int64_t *out);

static int failures;

#define CHECK(cond, ...)                                                           \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);       \
			fprintf(stderr, __VA_ARGS__);                              \
			fputc('\n', stderr);                                       \
			failures++;                                                \
		}                                                                  \
	} while (0)

int main(void)
{
	err_fn host = (err_fn)dlsym(RTLD_DEFAULT, "marrow_host_last_error");
	err_fn emu = (err_fn)dlsym(RTLD_DEFAULT, "marrow_emu_last_error");
	err_fn shared = (err_fn)dlsym(RTLD_DEFAULT, "marrow_last_error");
	struct marrow_emu_pd *pd = NULL;
	int rc;

	/* A failing call into libmarrow_host only. */
	rc = marrow_gda_config_check(NULL);
	CHECK(rc == MARROW_EINVAL, "marrow_gda_config_check(NULL) -> %d, expected EINVAL", rc);
	if (shared != NULL)
		CHECK(0, "marrow_last_error is still exported by one of the libraries: the program reads "
		      "\"%s\" after a failing host call", shared());
	CHECK(host != NULL && emu != NULL, "marrow_host_last_error %s, marrow_emu_last_error %s",
	      host ? "found" : "missing", emu ? "found" : "missing");
	if (host == NULL || emu == NULL)
		return 1;
	printf("host: %s\n", host());
	CHECK(strstr(host(), "marrow_gda_config_check") != NULL, "host message \"%s\"", host());
	CHECK(emu()[0] == '\0', "emu has a message without a failing emu call: \"%s\"", emu());

	/* Then one into libmarrow_emu: its own buffer, host's message stays. */
	rc = marrow_emu_pd_alloc(NULL, &pd);
	CHECK(rc == MARROW_EINVAL, "marrow_emu_pd_alloc(NULL) -> %d, expected EINVAL", rc);
	printf("emu:  %s\n", emu());
	CHECK(strstr(emu(), "marrow_emu_pd_alloc") != NULL, "emu message \"%s\"", emu());
	CHECK(strstr(host(), "marrow_gda_config_check") != NULL, "host message overwritten: \"%s\"", host());

	/* The layout tables: each library's query answers from its own table
	 * (with one exported marrow_abi_query, both names led to the first). */
	for (const char **n = (const char *[]){"marrow_abi_query", "marrow_abi_version", "marrow_check_log_sq",
						"marrow_status_name", NULL}; *n != NULL; n++)
		CHECK(dlsym(RTLD_DEFAULT, *n) == NULL, "%s is still exported by one of the libraries", *n);
	query_fn emu_q = (query_fn)dlsym(RTLD_DEFAULT, "marrow_emu_abi_query");
	query_fn host_q = (query_fn)dlsym(RTLD_DEFAULT, "marrow_host_abi_query");
	CHECK(emu_q != NULL && host_q != NULL, "marrow_emu_abi_query %s, marrow_host_abi_query %s",
	      emu_q ? "found" : "missing", host_q ? "found" : "missing");
	if (emu_q != NULL && host_q != NULL) {
		int64_t v = -1;
		CHECK(emu_q("sizeof:marrow_emu_device_attr", &v) == MARROW_OK && v > 0,
		      "emu's table lacks its own struct (%lld)", (long long)v);
		CHECK(host_q("sizeof:marrow_emu_device_attr", &v) == MARROW_ENOENT,
		      "host answered for an emu struct: it read emu's table");
		CHECK(host_q("sizeof:marrow_gda_config", &v) == MARROW_OK && v > 0,
		      "host's table lacks its own struct (%lld)", (long long)v);
		CHECK(emu_q("sizeof:marrow_gda_config", &v) == MARROW_ENOENT,
		      "emu answered for a host struct: it read host's table");
		CHECK(strstr(emu(), "marrow_abi_query: unknown key 'sizeof:marrow_gda_config'") != NULL,
		      "emu message \"%s\"", emu());
	}
	if (failures) {
		fprintf(stderr, "lib_test_last_error: %d check(s) failed\n", failures);
		return 1;
	}
	printf("lib_test_last_error: all checks passed\n");
	return 0;
}
