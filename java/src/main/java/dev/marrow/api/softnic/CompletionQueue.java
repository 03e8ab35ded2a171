// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static dev.marrow.internal.ffi.CStruct.getAddress;
import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A CQ of CQE64s in host memory. {@link #buffer()} and {@link #dbrec()} are
 * views of native memory that become inaccessible once the CQ is closed.
 */
public final class CompletionQueue implements AutoCloseable {
    private final MemorySegment handle;
    private final Arena views = Arena.ofShared();
    private final int cqn;
    private final int entries;
    private final int flags;
    private final int cqeSize;
    private final MemorySegment buffer;
    private final MemorySegment dbrec;
    private boolean closed;

    private CompletionQueue(MemorySegment handle, MemorySegment view) {
        this.handle = handle;
        StructLayout l = EmuLayouts.CQ_VIEW;
        this.cqn = getInt(view, l, "cqn");
        this.entries = getInt(view, l, "cqe_cnt");
        this.flags = getInt(view, l, "flags");
        this.cqeSize = getInt(view, l, "cqe_size");
        this.buffer = getAddress(view, l, "buf").reinterpret((long) cqeSize * entries, views, null);
        this.dbrec = getAddress(view, l, "dbrec").reinterpret(8, views, null);
    }

    static CompletionQueue create(MemorySegment dev, int logEntries, boolean collapsed, boolean overrunIgnore) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = CStruct.allocate(a, EmuLayouts.CQ_ATTR);
            setInt(attr, EmuLayouts.CQ_ATTR, "log_cqe_cnt", logEntries);
            setInt(attr, EmuLayouts.CQ_ATTR, "flags", (collapsed ? CqFlag.COLLAPSED.code() : 0)
                    | (overrunIgnore ? CqFlag.OVERRUN_IGNORE.code() : 0));
            MemorySegment view = CStruct.allocate(a, EmuLayouts.CQ_VIEW);
            MemorySegment out = a.allocate(ADDRESS);
            EmuFfi.LIB.check((int) EmuFfi.CQ_CREATE.invokeExact(dev, attr, out, view), "marrow_emu_cq_create");
            return new CompletionQueue(out.get(ADDRESS, 0), view);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    public int cqn() {
        return cqn;
    }

    public int entries() {
        return entries;
    }

    /** Bytes per CQE, as the NIC reports it. */
    public int cqeSize() {
        return cqeSize;
    }

    /** The creation flags as the NIC reports them (marrow_cq_view.flags). */
    public int flags() {
        return flags;
    }

    public boolean collapsed() {
        return (flags & CqFlag.COLLAPSED.code()) != 0;
    }

    /** entries CQE64s. */
    public MemorySegment buffer() {
        return buffer;
    }

    /** 2 x BE32: consumer index, arm word. */
    public MemorySegment dbrec() {
        return dbrec;
    }

    MemorySegment handle() {
        return handle;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            EmuFfi.LIB.check((int) EmuFfi.CQ_DESTROY.invokeExact(handle), "marrow_emu_cq_destroy");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        } finally {
            views.close();
        }
    }
}
