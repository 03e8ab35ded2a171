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
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setAddress;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * An RC queue pair of the software NIC. The SQ ring, doorbell record and UAR
 * mailbox are exposed as native views for producers that build WQEs
 * themselves; they become inaccessible once the QP is closed.
 */
public final class QueuePair implements AutoCloseable {

    /** Creation parameters; sizes are log2. */
    public record Config(CompletionQueue sendCq, CompletionQueue recvCq, int logSqWqebbs, int logRqWqes,
                         int maxRqSge, int maxInlineData, int access) {
        public static Config of(CompletionQueue cq) {
            return new Config(cq, null, 8, 0, 1, 220, Access.ALL);
        }

        public Config withLogSqWqebbs(int n) {
            return new Config(sendCq, recvCq, n, logRqWqes, maxRqSge, maxInlineData, access);
        }

        public Config withMaxInlineData(int n) {
            return new Config(sendCq, recvCq, logSqWqebbs, logRqWqes, maxRqSge, n, access);
        }
    }

    private final MemorySegment handle;
    private final Arena views = Arena.ofShared();
    private final int qpn;
    private final int sqWqebbs;
    private final int maxInlineData;
    private final int sqStride;
    private final MemorySegment sq;
    private final MemorySegment dbrec;
    private final MemorySegment uar;
    private final CompletionQueue sendCq;
    private boolean closed;

    private QueuePair(MemorySegment handle, MemorySegment v, CompletionQueue sendCq) {
        this.handle = handle;
        this.sendCq = sendCq;
        StructLayout l = EmuLayouts.QP_VIEW;
        this.qpn = getInt(v, l, "qpn");
        this.sqWqebbs = getInt(v, l, "sq_wqe_cnt");
        this.maxInlineData = getInt(v, l, "max_inline_data");
        this.sqStride = getInt(v, l, "sq_stride");
        this.sq = getAddress(v, l, "sq_buf").reinterpret((long) sqStride * sqWqebbs, views, null);
        this.dbrec = getAddress(v, l, "dbrec").reinterpret(8, views, null);
        long uarSize = getLong(v, l, "uar_size");
        this.uar = getAddress(v, l, "uar").reinterpret(Math.max(8, uarSize), views, null);
    }

    static QueuePair create(MemorySegment pd, Config c) {
        try (Arena a = Arena.ofConfined()) {
            StructLayout l = EmuLayouts.QP_ATTR;
            MemorySegment attr = CStruct.allocate(a, l);
            setAddress(attr, l, "send_cq", c.sendCq().handle());
            setAddress(attr, l, "recv_cq", c.recvCq() == null ? MemorySegment.NULL : c.recvCq().handle());
            setInt(attr, l, "log_sq_wqebb_cnt", c.logSqWqebbs());
            setInt(attr, l, "log_rq_wqe_cnt", c.logRqWqes());
            setInt(attr, l, "max_rq_sge", c.maxRqSge());
            setInt(attr, l, "max_inline_data", c.maxInlineData());
            setInt(attr, l, "access", c.access());
            MemorySegment view = CStruct.allocate(a, EmuLayouts.QP_VIEW);
            MemorySegment out = a.allocate(ADDRESS);
            EmuFfi.LIB.check((int) EmuFfi.QP_CREATE.invokeExact(pd, attr, out, view), "marrow_emu_qp_create");
            return new QueuePair(out.get(ADDRESS, 0), view, c.sendCq());
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    public int qpn() {
        return qpn;
    }

    public int sqWqebbs() {
        return sqWqebbs;
    }

    /** Bytes per SQ entry (WQEBB), as the NIC reports it. */
    public int sqStride() {
        return sqStride;
    }

    public int maxInlineData() {
        return maxInlineData;
    }

    public MemorySegment sendQueue() {
        return sq;
    }

    public MemorySegment dbrec() {
        return dbrec;
    }

    public MemorySegment uar() {
        return uar;
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public void modify(QpState state, int peerQpn) {
        try {
            EmuFfi.LIB.check((int) EmuFfi.QP_MODIFY.invokeExact(handle, state.code(), peerQpn), "marrow_emu_qp_modify");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** RESET -> INIT -> RTR (peer) -> RTS. Use {@code connect(this)} for loopback. */
    public void connect(QueuePair peer) {
        modify(QpState.INIT, 0);
        modify(QpState.RTR, peer.qpn());
        modify(QpState.RTS, 0);
    }

    public QpState state() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            EmuFfi.LIB.check((int) EmuFfi.QP_STATE.invokeExact(handle, out), "marrow_emu_qp_state");
            return QpState.of(out.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /**
     * Serves this QP from engine thread {@code thread} (0 .. engine threads - 1) instead of the
     * one its QPN picks (marrow_emu_qp_set_engine; docs/design/software-nic.md section 2).
     */
    public void setEngineThread(int thread) {
        if (closed) {
            throw new IllegalStateException("QueuePair is closed");
        }
        try {
            EmuFfi.LIB.check((int) EmuFfi.QP_SET_ENGINE.invokeExact(handle, thread), "marrow_emu_qp_set_engine");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** The engine thread that serves this QP now, as the software NIC reports it. */
    public int engineThread() {
        if (closed) {
            throw new IllegalStateException("QueuePair is closed");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            EmuFfi.LIB.check((int) EmuFfi.QP_ENGINE.invokeExact(handle, out), "marrow_emu_qp_engine");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /**
     * The engine's view of this QP as watchdog-dump pairs ({@code emu_qp_state=RTS emu_sq_pi=6
     * emu_sq_ci=5 ...}, docs/design/watchdog.md); parks the engine for a moment.
     */
    public String watchdogDump() {
        if (closed) {
            throw new IllegalStateException("QueuePair is closed");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(1024);
            EmuFfi.LIB.check((int) EmuFfi.QP_DUMP.invokeExact(handle, buf, (int) buf.byteSize()),
                    "marrow_emu_qp_dump");
            return buf.getString(0);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    boolean isOpen() {
        return !closed;
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
            EmuFfi.LIB.check((int) EmuFfi.QP_DESTROY.invokeExact(handle), "marrow_emu_qp_destroy");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        } finally {
            views.close();
        }
    }
}
