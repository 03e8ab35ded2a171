// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * libmarrow_cuda.so's memory operations for DevX queues (marrow_cuda_devx_mem_ops,
 * docs/design/mlx5-queue-formats.md §7) on a real GPU, called through the function pointers the
 * DevX runtime calls: cudaMalloc, the copies both ways, the dma-buf export (or its refusal, with the
 * reason), cudaFree. Needs no NIC.
 */
@Tag("gpu")
class Mlx5GpuMemOpsTest {
    private static final Linker LINKER = Linker.nativeLinker();

    private static MethodHandle fn(MemorySegment ops, String field, FunctionDescriptor d) {
        MemorySegment p = CStruct.getAddress(ops, Mlx5Ffi.GPU_MEM_OPS, field);
        assertNotEquals(0L, p.address(), field + " is set");
        return LINKER.downcallHandle(p, d);
    }

    private static void assumeGpu() {
        assumeTrue(NativeLoader.manifest().has("cuda") && NativeLoader.manifest().has("verbs"),
                "libmarrow_cuda.so and libmarrow_verbs.so are both needed: " + NativeLoader.manifest().buildNote("cuda"));
        assumeTrue(Backend.CUDA.isAvailable(), () -> "no GPU: " + Backend.CUDA.unavailabilityCause().getMessage());
    }

    @Test
    void allocCopyExportAndFreeOnTheGpu() throws Throwable {
        assumeGpu();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ops = CStruct.allocate(a, Mlx5Ffi.GPU_MEM_OPS);
            Mlx5Ffi.C.LIB.check((int) Mlx5Ffi.C.DEVX_MEM_OPS.invokeExact(0, ops), "marrow_cuda_devx_mem_ops");
            MemorySegment ctx = CStruct.getAddress(ops, Mlx5Ffi.GPU_MEM_OPS, "ctx");
            MethodHandle alloc = fn(ops, "alloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
            MethodHandle free = fn(ops, "free", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            MethodHandle dmabuf = fn(ops, "dmabuf_fd", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG,
                    ADDRESS, ADDRESS));
            MethodHandle toGpu = fn(ops, "to_gpu", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
            MethodHandle fromGpu = fn(ops, "from_gpu", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                    JAVA_LONG));

            long len = 40960;
            MemorySegment out = a.allocate(ADDRESS);
            assertEquals(0, (int) alloc.invokeExact(ctx, len + 4096, out));
            MemorySegment gpu = out.get(ADDRESS, 0);
            assertNotEquals(0L, gpu.address());
            try {
                MemorySegment src = a.allocate(8192);
                for (int i = 0; i < 8192; i++) {
                    src.set(JAVA_BYTE, i, (byte) (i * 7 + 3));
                }
                MemorySegment back = a.allocate(8192);
                assertEquals(0, (int) toGpu.invokeExact(ctx, gpu, src, 8192L));
                assertEquals(0, (int) fromGpu.invokeExact(ctx, back, gpu, 8192L));
                assertArrayEquals(src.toArray(JAVA_BYTE), back.toArray(JAVA_BYTE), "the bytes made the round trip");

                MemorySegment aligned = MemorySegment.ofAddress((gpu.address() + 4095) & ~4095L);
                MemorySegment fd = a.allocate(JAVA_INT);
                MemorySegment off = a.allocate(JAVA_LONG);
                int rc = (int) dmabuf.invokeExact(ctx, aligned, len, fd, off);
                if (rc == 0) {
                    int f = fd.get(JAVA_INT, 0);
                    assertTrue(f >= 0, "an fd");
                    assertEquals(0L, off.get(JAVA_LONG, 0), "a 4 KiB-aligned start is the dma-buf's start");
                    System.out.println("dma-buf export: fd " + f);
                    MethodHandle close = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
                            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
                    assertEquals(0, (int) close.invokeExact(f));
                } else {
                    NativeException e = Mlx5Ffi.C.LIB.exception(rc, "marrow_cuda_dmabuf_fd");
                    assertTrue(e.is(Status.ENOSYS) || e.is(Status.EIO), e.getMessage());
                    assertTrue(e.getMessage().contains("cuMemGetHandleForAddressRange"), e.getMessage());
                    System.out.println("dma-buf export refused: " + e.getMessage());
                }
            } finally {
                assertEquals(0, (int) free.invokeExact(ctx, gpu));
            }
        }
    }

    @Test
    void aMissingDeviceOrAShortStructIsRefused() {
        assumeGpu();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ops = CStruct.allocate(a, Mlx5Ffi.GPU_MEM_OPS);
            NativeException nodev = assertThrows(NativeException.class, () -> Mlx5Ffi.C.LIB.check(
                    (int) Mlx5Ffi.C.DEVX_MEM_OPS.invokeExact(4096, ops), "marrow_cuda_devx_mem_ops"));
            assertTrue(nodev.is(Status.ENODEV) && nodev.getMessage().contains("out of range"), nodev.getMessage());
            CStruct.setInt(ops, Mlx5Ffi.GPU_MEM_OPS, "size", 8);
            NativeException shortStruct = assertThrows(NativeException.class, () -> Mlx5Ffi.C.LIB.check(
                    (int) Mlx5Ffi.C.DEVX_MEM_OPS.invokeExact(0, ops), "marrow_cuda_devx_mem_ops"));
            assertTrue(shortStruct.is(Status.EINVAL), shortStruct.getMessage());
        }
    }
}
