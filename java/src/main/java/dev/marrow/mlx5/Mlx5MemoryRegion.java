// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import java.lang.foreign.MemorySegment;

/** A buffer registered with the NIC (ibv_reg_mr). Deregister before closing the device. */
public final class Mlx5MemoryRegion implements AutoCloseable {
    private final Mlx5Device device;
    private final MemorySegment handle;
    private final MemorySegment buffer;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    Mlx5MemoryRegion(Mlx5Device device, MemorySegment handle, MemorySegment buffer, int lkey, int rkey) {
        this.device = device;
        this.handle = handle;
        this.buffer = buffer;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    public MemorySegment buffer() {
        return buffer;
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    MemorySegment handle() {
        return handle;
    }

    public Mlx5Device device() {
        return device;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.MR_DEREG.invokeExact(handle), "marrow_mlx5_mr_dereg");
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }
}
