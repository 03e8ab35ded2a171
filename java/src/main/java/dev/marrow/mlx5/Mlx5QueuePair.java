// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.peer.PeerInfo;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.QpState;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;

import static dev.marrow.internal.ffi.CStruct.getAddress;
import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A hardware RC queue pair and its send CQ, created through verbs, with
 * the queues exposed exactly like {@link dev.marrow.api.softnic.QueuePair}'s:
 * the same segments (SQ ring, doorbell record, UAR) plus the raw
 * {@code struct marrow_qp_view} / {@code marrow_cq_view} that the mini-gda
 * runners take. Everything becomes inaccessible once the QP is closed.
 *
 * <p>Connect: {@link #localInfo} → {@link dev.marrow.peer.PeerExchange#exchange} →
 * {@link #connect} → {@link dev.marrow.peer.PeerExchange#barrier} before the first write.
 */
public final class Mlx5QueuePair implements HardwareQueuePair {

    /** Creation parameters; sizes are log2. */
    public record Config(int logSqWqebbs, int logCqEntries, int maxInlineData, int access, QueuePlacement placement,
                         int sqPsn) {
        /** 256-WQEBB SQ, 256 CQEs, 220 bytes inline, all remote access, host queues, random PSN. */
        public static Config defaults() {
            return new Config(8, 8, 220, Access.ALL, QueuePlacement.HOST, ThreadLocalRandom.current().nextInt(1 << 24));
        }

        public Config withMaxInlineData(int n) {
            return new Config(logSqWqebbs, logCqEntries, n, access, placement, sqPsn);
        }

        public Config withPlacement(QueuePlacement p) {
            return new Config(logSqWqebbs, logCqEntries, maxInlineData, access, p, sqPsn);
        }

        public Config withLogSqWqebbs(int n) {
            return new Config(n, logCqEntries, maxInlineData, access, placement, sqPsn);
        }
    }

    private final MemorySegment handle;
    private final Arena views = Arena.ofShared();
    private final MemorySegment qpView;
    private final MemorySegment cqView;
    private final MemorySegment sq;
    private final MemorySegment dbrec;
    private final MemorySegment uar;
    private final MemorySegment cqBuffer;
    private final MemorySegment cqDbrec;
    private boolean closed;

    private Mlx5QueuePair(MemorySegment handle, MemorySegment qv, MemorySegment cv) {
        this.handle = handle;
        this.qpView = views.allocate(EmuLayouts.QP_VIEW).copyFrom(qv);
        this.cqView = views.allocate(EmuLayouts.CQ_VIEW).copyFrom(cv);
        long sqBytes = (long) getInt(qpView, EmuLayouts.QP_VIEW, "sq_stride") * getInt(qpView, EmuLayouts.QP_VIEW, "sq_wqe_cnt");
        this.sq = getAddress(qpView, EmuLayouts.QP_VIEW, "sq_buf").reinterpret(sqBytes, views, null);
        this.dbrec = getAddress(qpView, EmuLayouts.QP_VIEW, "dbrec").reinterpret(8, views, null);
        this.uar = getAddress(qpView, EmuLayouts.QP_VIEW, "uar").reinterpret(Math.max(8, uarSize()), views, null);
        this.cqBuffer = getAddress(cqView, EmuLayouts.CQ_VIEW, "buf").reinterpret((long) getInt(cqView, EmuLayouts.CQ_VIEW, "cqe_size") * getInt(cqView, EmuLayouts.CQ_VIEW, "cqe_cnt"), views, null);
        this.cqDbrec = getAddress(cqView, EmuLayouts.CQ_VIEW, "dbrec").reinterpret(8, views, null);
    }

    static Mlx5QueuePair create(Mlx5Device dev, Config c) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = CStruct.allocate(a, Mlx5Ffi.QP_ATTR);
            setInt(attr, Mlx5Ffi.QP_ATTR, "log_sq_wqebb_cnt", c.logSqWqebbs());
            setInt(attr, Mlx5Ffi.QP_ATTR, "log_cqe_cnt", c.logCqEntries());
            setInt(attr, Mlx5Ffi.QP_ATTR, "max_inline_data", c.maxInlineData());
            setInt(attr, Mlx5Ffi.QP_ATTR, "access", c.access());
            setInt(attr, Mlx5Ffi.QP_ATTR, "placement", c.placement().code());
            setInt(attr, Mlx5Ffi.QP_ATTR, "sq_psn", c.sqPsn());
            MemorySegment qv = CStruct.allocate(a, EmuLayouts.QP_VIEW);
            MemorySegment cv = CStruct.allocate(a, EmuLayouts.CQ_VIEW);
            MemorySegment out = a.allocate(ADDRESS);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.QP_CREATE.invokeExact(dev.handle(), attr, out, qv, cv),
                    "marrow_mlx5_qp_create");
            return new Mlx5QueuePair(out.get(ADDRESS, 0), qv, cv);
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    public int qpn() {
        return getInt(qpView, EmuLayouts.QP_VIEW, "qpn");
    }

    public int sqWqebbs() {
        return getInt(qpView, EmuLayouts.QP_VIEW, "sq_wqe_cnt");
    }

    /** What the provider granted (at least what was asked for). */
    public int maxInlineData() {
        return getInt(qpView, EmuLayouts.QP_VIEW, "max_inline_data");
    }

    /** The SQ ring: sqWqebbs() x 64 bytes of WQEBBs. */
    public MemorySegment sendQueue() {
        return sq;
    }

    /** 2 x BE32: [0] receive counter, [1] send counter. */
    public MemorySegment dbrec() {
        return dbrec;
    }

    /** The BlueFlame/doorbell register (device MMIO): store 8 bytes, never read. */
    public MemorySegment uar() {
        return uar;
    }

    /** bf.size: bytes of one BlueFlame half; 0 when the register takes doorbells only. */
    public long uarSize() {
        return getLong(qpView, EmuLayouts.QP_VIEW, "uar_size");
    }

    public int cqn() {
        return getInt(cqView, EmuLayouts.CQ_VIEW, "cqn");
    }

    public int cqEntries() {
        return getInt(cqView, EmuLayouts.CQ_VIEW, "cqe_cnt");
    }

    /** cqEntries() x 64-byte CQEs (owner-bit polling). */
    public MemorySegment cqBuffer() {
        return cqBuffer;
    }

    /** 2 x BE32: consumer index (the poller must advance it: the CQ checks overrun), arm word. */
    public MemorySegment cqDbrec() {
        return cqDbrec;
    }

    /** The raw struct marrow_qp_view (EmuLayouts.QP_VIEW), valid until close: pass it to the gda runners. */
    public MemorySegment qpView() {
        return qpView;
    }

    /** The raw struct marrow_cq_view (EmuLayouts.CQ_VIEW), valid until close. */
    public MemorySegment cqView() {
        return cqView;
    }

    /** This side's half of the exchange; mr (may be null) is the buffer the peer may write. */
    public PeerInfo localInfo(Mlx5MemoryRegion mr) {
        return Mlx5Ffi.localInfo(Mlx5Ffi.V.QP_LOCAL_INFO, "marrow_mlx5_qp_local_info", handle, mr);
    }

    /** RESET -> INIT -> RTR -> RTS towards peer; params null = the C defaults. */
    public void connect(PeerInfo peer, ConnParams params) {
        Mlx5Ffi.connect(Mlx5Ffi.V.QP_CONNECT, "marrow_mlx5_qp_connect", handle, peer, params);
    }

    /** The state as the NIC reports it (ibv_query_qp). */
    public QpState state() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.QP_STATE.invokeExact(handle, out), "marrow_mlx5_qp_state");
            return QpState.of(out.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    /**
     * Back to RESET from any state (e.g. ERR after an error CQE), so that
     * {@link #connect} brings it to RTS again: the SQ restarts at counter 0,
     * the CQ keeps its consumer index (marrow_mlx5_qp_reset).
     */
    public void reset() {
        try {
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.QP_RESET.invokeExact(handle), "marrow_mlx5_qp_reset");
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    /**
     * Maps the queues into the current CUDA device: SQ, both doorbell
     * records and the CQ as host memory, the UAR as IO memory (this is the
     * step that needs PeerMappingOverride=1).
     */
    public GpuQueueMappings mapIntoGpu() {
        return GpuQueueMappings.of(this);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.QP_DESTROY.invokeExact(handle), "marrow_mlx5_qp_destroy");
            closed = true;
            views.close();
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }
}
