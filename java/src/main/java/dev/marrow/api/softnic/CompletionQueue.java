// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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
    private final MemorySegment buffer;
    private final MemorySegment dbrec;
    private boolean closed;

    private CompletionQueue(MemorySegment handle, MemorySegment view) {
        this.handle = handle;
        this.cqn = view.get(JAVA_INT, EmuLayouts.CQ_VIEW.byteOffset(g("cqn")));
        this.entries = view.get(JAVA_INT, EmuLayouts.CQ_VIEW.byteOffset(g("cqe_cnt")));
        this.flags = view.get(JAVA_INT, EmuLayouts.CQ_VIEW.byteOffset(g("flags")));
        this.buffer = view.get(ADDRESS, EmuLayouts.CQ_VIEW.byteOffset(g("buf"))).reinterpret(64L * entries, views, null);
        this.dbrec = view.get(ADDRESS, EmuLayouts.CQ_VIEW.byteOffset(g("dbrec"))).reinterpret(8, views, null);
    }

    static java.lang.foreign.MemoryLayout.PathElement g(String n) {
        return java.lang.foreign.MemoryLayout.PathElement.groupElement(n);
    }

    static CompletionQueue create(MemorySegment dev, int logEntries, boolean collapsed, boolean overrunIgnore) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = NativeLib.allocateSized(a, EmuLayouts.CQ_ATTR);
            attr.set(JAVA_INT, 8, logEntries);
            attr.set(JAVA_INT, 12, (collapsed ? 1 : 0) | (overrunIgnore ? 2 : 0));
            MemorySegment view = NativeLib.allocateSized(a, EmuLayouts.CQ_VIEW);
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

    public boolean collapsed() {
        return (flags & 1) != 0;
    }

    /** entries x 64 bytes of CQE64s. */
    public MemorySegment buffer() {
        return buffer;
    }

    /** 2 x BE32: consumer index, arm word. */
    public MemorySegment dbrec() {
        return dbrec;
    }

    /** True after an overrun put the CQ in error. */
    public boolean inError() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            EmuFfi.LIB.check((int) EmuFfi.CQ_STATUS.invokeExact(handle, out), "marrow_emu_cq_status");
            return out.get(JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
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
