// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * A host range that GPU kernels may address (marrow_cuda_map.h): the NIC's
 * UAR as IO memory, or host-resident queues. Closing drops this reference;
 * the last one unregisters the range. A refused IO mapping throws a
 * {@link dev.marrow.api.NativeException} (EPERM) whose message names
 * {@code PeerMappingOverride=1}.
 */
public final class GpuMapping implements AutoCloseable {
    private final MemorySegment host;
    private final long deviceAddress;
    private boolean closed;

    private GpuMapping(MemorySegment host, long deviceAddress) {
        this.host = host;
        this.deviceAddress = deviceAddress;
    }

    /** Registers host with the current CUDA device; ioMemory for device MMIO such as the UAR. */
    public static GpuMapping register(MemorySegment host, boolean ioMemory) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            Mlx5Ffi.C.LIB.check((int) Mlx5Ffi.C.REGISTER.invokeExact(host, host.byteSize(), ioMemory ? 1 : 0, out),
                    "marrow_cuda_host_register");
            return new GpuMapping(host, out.get(ADDRESS, 0).address());
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    /** The address a kernel uses for the first byte of {@link #host()}. */
    public long deviceAddress() {
        return deviceAddress;
    }

    public MemorySegment host() {
        return host;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Mlx5Ffi.C.LIB.check((int) Mlx5Ffi.C.UNREGISTER.invokeExact(host), "marrow_cuda_host_unregister");
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }
}
