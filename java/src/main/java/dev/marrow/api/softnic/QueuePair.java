// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.marrow.api.softnic.CompletionQueue.g;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

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

        public Config withReceiveQueue(CompletionQueue rcq, int logRq) {
            return new Config(sendCq, rcq, logSqWqebbs, logRq, maxRqSge, maxInlineData, access);
        }
    }

    private final MemorySegment handle;
    private final Arena views = Arena.ofShared();
    private final int qpn;
    private final int sqWqebbs;
    private final int maxInlineData;
    private final MemorySegment sq;
    private final MemorySegment dbrec;
    private final MemorySegment uar;
    private final CompletionQueue sendCq;
    private boolean closed;

    private QueuePair(MemorySegment handle, MemorySegment v, CompletionQueue sendCq) {
        this.handle = handle;
        this.sendCq = sendCq;
        this.qpn = v.get(JAVA_INT, EmuLayouts.QP_VIEW.byteOffset(g("qpn")));
        this.sqWqebbs = v.get(JAVA_INT, EmuLayouts.QP_VIEW.byteOffset(g("sq_wqe_cnt")));
        this.maxInlineData = v.get(JAVA_INT, EmuLayouts.QP_VIEW.byteOffset(g("max_inline_data")));
        this.sq = v.get(ADDRESS, EmuLayouts.QP_VIEW.byteOffset(g("sq_buf"))).reinterpret(64L * sqWqebbs, views, null);
        this.dbrec = v.get(ADDRESS, EmuLayouts.QP_VIEW.byteOffset(g("dbrec"))).reinterpret(8, views, null);
        long uarSize = v.get(JAVA_LONG, EmuLayouts.QP_VIEW.byteOffset(g("uar_size")));
        this.uar = v.get(ADDRESS, EmuLayouts.QP_VIEW.byteOffset(g("uar"))).reinterpret(Math.max(8, uarSize), views, null);
    }

    static QueuePair create(MemorySegment pd, Config c) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = NativeLib.allocateSized(a, EmuLayouts.QP_ATTR);
            attr.set(ADDRESS, EmuLayouts.QP_ATTR.byteOffset(g("send_cq")), c.sendCq().handle());
            attr.set(ADDRESS, EmuLayouts.QP_ATTR.byteOffset(g("recv_cq")),
                    c.recvCq() == null ? MemorySegment.NULL : c.recvCq().handle());
            attr.set(JAVA_INT, EmuLayouts.QP_ATTR.byteOffset(g("log_sq_wqebb_cnt")), c.logSqWqebbs());
            attr.set(JAVA_INT, EmuLayouts.QP_ATTR.byteOffset(g("log_rq_wqe_cnt")), c.logRqWqes());
            attr.set(JAVA_INT, EmuLayouts.QP_ATTR.byteOffset(g("max_rq_sge")), c.maxRqSge());
            attr.set(JAVA_INT, EmuLayouts.QP_ATTR.byteOffset(g("max_inline_data")), c.maxInlineData());
            attr.set(JAVA_INT, EmuLayouts.QP_ATTR.byteOffset(g("access")), c.access());
            MemorySegment view = NativeLib.allocateSized(a, EmuLayouts.QP_VIEW);
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
