/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_cuda_host_register / _unregister (marrow_cuda_map.h): host
 * ranges, the NIC's UAR included, mapped into the GPU (docs/design/mlx5-queue-formats.md §5.2).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "common/marrow_common.h"
#include "marrow/marrow_cuda_map.h"
#include "uar_map_text.h"

namespace {

/* One range this library registered (owned) or found registered (borrowed). */
struct range {
	uintptr_t base;
	size_t len;
	int refs;
	int owned;   /* 1: cudaHostUnregister on the last reference */
};

pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
range *table;
size_t table_n, table_cap;

range *find(uintptr_t p)
{
	for (size_t i = 0; i < table_n; i++)
		if (p >= table[i].base && p - table[i].base < table[i].len)
			return &table[i];
	return NULL;
}

int add(uintptr_t base, size_t len, int owned)
{
	if (table_n == table_cap) {
		size_t cap = table_cap ? 2 * table_cap : 16;
		range *t = (range *)realloc(table, cap * sizeof(*t));

		if (t == NULL)
			return marrow_fail(MARROW_ENOMEM, "marrow_cuda_host_register: out of memory");
		table = t;
		table_cap = cap;
	}
	table[table_n++] = range{ base, len, 1, owned };
	return MARROW_OK;
}

/* Device address of ptr, checked to be linear up to ptr+len-1, which also
 * proves the whole range is mapped when someone else registered it. */
int device_address(void *ptr, size_t len, void **out)
{
	void *first = NULL, *last = NULL;
	cudaError_t e = cudaHostGetDevicePointer(&first, ptr, 0);

	if (e == cudaSuccess)
		e = cudaHostGetDevicePointer(&last, (char *)ptr + len - 1, 0);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		return marrow_fail(MARROW_EIO, "cudaHostGetDevicePointer(%p) failed: %s (%d: %s): "
				   "registered without cudaHostRegisterMapped?", ptr, cudaGetErrorName(e),
				   (int)e, cudaGetErrorString(e));
	}
	if ((uintptr_t)last - (uintptr_t)first != len - 1)
		return marrow_fail(MARROW_EBUSY, "marrow_cuda_host_register(%p, %zu): the range only partly "
				   "overlaps an earlier registration", ptr, len);
	*out = first;
	return MARROW_OK;
}

/* The range already is (partly) registered: reuse it if it covers ours. */
int reuse(uintptr_t base, size_t len, void *ptr, size_t user_len, void **dev_ptr)
{
	range *r = find(base);
	int rc;

	if (r != NULL && (base + len > r->base + r->len))
		return marrow_fail(MARROW_EBUSY, "marrow_cuda_host_register(%p, %zu): range 0x%zx+%zu only partly "
				   "overlaps registered 0x%zx+%zu", ptr, user_len, (size_t)base, len,
				   (size_t)r->base, r->len);
	rc = device_address(ptr, user_len, dev_ptr);
	if (rc)
		return rc;
	if (r != NULL) {
		r->refs++;
		return MARROW_OK;
	}
	return add(base, len, 0); /* someone else's: never unregistered here */
}

} /* namespace */

extern "C" MARROW_API int marrow_cuda_host_register(void *ptr, size_t len, int io_memory, void **dev_ptr)
{
	uintptr_t base = (uintptr_t)ptr, end;
	unsigned int flags = cudaHostRegisterPortable | cudaHostRegisterMapped;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	cudaError_t e;
	int rc;

	if (ptr == NULL || len == 0 || dev_ptr == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_cuda_host_register(%p, %zu, dev_ptr %p): NULL pointer "
				   "or empty range", ptr, len, (void *)dev_ptr);
	if (base + len < base)
		return marrow_fail(MARROW_EINVAL, "marrow_cuda_host_register(%p, %zu): range wraps", ptr, len);
	*dev_ptr = NULL;
	end = base + len;
	if (io_memory) {
		/* MMIO exactly as given: NVSHMEM and DOCA register the
		 * unaligned BlueFlame register alone, and that works. */
		flags |= cudaHostRegisterIoMemory;
	} else {
		/* Whole pages: a DBR shares its page with other objects. */
		base &= ~(uintptr_t)(page - 1);
		end = (end + page - 1) & ~(uintptr_t)(page - 1);
	}
	pthread_mutex_lock(&table_lock);
	e = cudaHostRegister((void *)base, end - base, flags);
	if (e == cudaErrorHostMemoryAlreadyRegistered) {
		(void)cudaGetLastError();
		rc = reuse(base, end - base, ptr, len, dev_ptr);
	} else if (e != cudaSuccess) {
		(void)cudaGetLastError(); /* the runtime's sticky slot: later calls start clean */
		rc = uar_map_fail((int)e, cudaGetErrorName(e), cudaGetErrorString(e), io_memory, ptr, len);
	} else {
		rc = device_address(ptr, len, dev_ptr);
		if (rc == MARROW_OK)
			rc = add(base, end - base, 1);
		if (rc)
			cudaHostUnregister((void *)base);
	}
	pthread_mutex_unlock(&table_lock);
	if (rc)
		*dev_ptr = NULL;
	return rc;
}

extern "C" MARROW_API int marrow_cuda_host_unregister(void *ptr)
{
	range *r;
	cudaError_t e = cudaSuccess;
	uintptr_t base = 0;
	int last;

	if (ptr == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_cuda_host_unregister: NULL pointer");
	pthread_mutex_lock(&table_lock);
	r = find((uintptr_t)ptr);
	if (r == NULL) {
		pthread_mutex_unlock(&table_lock);
		return marrow_fail(MARROW_ENOENT, "marrow_cuda_host_unregister(%p): not registered through "
				   "marrow_cuda_host_register", ptr);
	}
	last = --r->refs == 0;
	if (last) {
		if (r->owned) {
			base = r->base;
			e = cudaHostUnregister((void *)base);
		}
		*r = table[--table_n]; /* unordered table: move the last entry here */
	}
	pthread_mutex_unlock(&table_lock);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		return marrow_fail(MARROW_EIO, "cudaHostUnregister(0x%zx) failed: %s (%d: %s)", (size_t)base,
				   cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
	}
	return MARROW_OK;
}
