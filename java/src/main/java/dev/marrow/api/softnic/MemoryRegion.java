// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.internal.ffi.EmuFfi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** Registered host memory with its mlx5-style keys. */
public final class MemoryRegion implements AutoCloseable {
    private final MemorySegment handle;
    private final MemorySegment memory;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    private MemoryRegion(MemorySegment handle, MemorySegment memory, int lkey, int rkey) {
        this.handle = handle;
        this.memory = memory;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    static MemoryRegion register(MemorySegment pd, MemorySegment memory, int access) {
        if (!memory.isNative()) {
            throw new IllegalArgumentException("only native (off-heap) memory can be registered");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            MemorySegment lk = a.allocate(JAVA_INT);
            MemorySegment rk = a.allocate(JAVA_INT);
            EmuFfi.LIB.check((int) EmuFfi.MR_REG.invokeExact(pd, memory, memory.byteSize(), access, out, lk, rk),
                    "marrow_emu_mr_reg");
            return new MemoryRegion(out.get(ADDRESS, 0), memory, lk.get(JAVA_INT, 0), rk.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    public MemorySegment memory() {
        return memory;
    }

    MemorySegment handle() {
        return handle;
    }

    public long address() {
        return memory.address();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            EmuFfi.LIB.check((int) EmuFfi.MR_DEREG.invokeExact(handle), "marrow_emu_mr_dereg");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }
}
