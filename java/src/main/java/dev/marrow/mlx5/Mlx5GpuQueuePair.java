// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.peer.PeerInfo;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * An RC queue pair whose SQ, send CQ and doorbell records live in GPU memory,
 * created through DevX (marrow_mlx5_gpu_qp_open; the way is described in
 * docs/design/mlx5-queue-formats.md §7): libmarrow_cuda.so supplies the GPU
 * memory (cudaMalloc, a dma-buf fd where the driver exports one, cudaMemcpy),
 * libmarrow_verbs.so registers it as DevX umems, takes a non-cached UAR and
 * creates the CQ and QP with PRM commands. The views hold device pointers
 * (never read from Java) and the UAR's host MMIO address.
 *
 * <p>Closing destroys the QP, the CQ, the umems and the UAR, then frees the
 * GPU memory. The host never loads that memory: {@link #indexes} reads the
 * doorbell records back with cudaMemcpy.
 */
public final class Mlx5GpuQueuePair implements HardwareQueuePair {

    /** The SQ producer counter (16 bits, WQEBBs) and the CQ consumer index (24 bits), as the DBRs hold them. */
    public record Indexes(int sqProducer, int cqConsumer) {
    }

    private final MemorySegment handle;
    private final Arena views = Arena.ofShared();
    private final MemorySegment qpView;
    private final MemorySegment cqView;
    private final String note;
    private boolean closed;

    private Mlx5GpuQueuePair(MemorySegment handle, MemorySegment qv, MemorySegment cv, String note) {
        this.handle = handle;
        this.qpView = views.allocate(EmuLayouts.QP_VIEW).copyFrom(qv);
        this.cqView = views.allocate(EmuLayouts.CQ_VIEW).copyFrom(cv);
        this.note = note;
    }

    static Mlx5GpuQueuePair open(Mlx5Device dev, Mlx5QueuePair.Config c, int cudaDevice) {
        if (c.placement() != QueuePlacement.GPU) {
            throw new IllegalArgumentException("a DevX queue pair keeps its queues in GPU memory: placement "
                    + c.placement() + " given");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ops = CStruct.allocate(a, Mlx5Ffi.GPU_MEM_OPS);
            Mlx5Ffi.C.LIB.check((int) Mlx5Ffi.C.DEVX_MEM_OPS.invokeExact(cudaDevice, ops), "marrow_cuda_devx_mem_ops");
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
            MemorySegment note = a.allocate(256);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.GPU_QP_OPEN.invokeExact(dev.handle(), attr, ops, out, qv, cv, note,
                    (int) note.byteSize()), "marrow_mlx5_gpu_qp_open");
            return new Mlx5GpuQueuePair(out.get(ADDRESS, 0), qv, cv, note.getString(0));
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    @Override
    public int qpn() {
        return getInt(qpView, EmuLayouts.QP_VIEW, "qpn");
    }

    @Override
    public int sqWqebbs() {
        return getInt(qpView, EmuLayouts.QP_VIEW, "sq_wqe_cnt");
    }

    /** Fallbacks the runtime took (BlueFlame UAR, device-pointer umems); "" when none. */
    public String note() {
        return note;
    }

    @Override
    public MemorySegment qpView() {
        return qpView;
    }

    @Override
    public MemorySegment cqView() {
        return cqView;
    }

    @Override
    public PeerInfo localInfo(Mlx5MemoryRegion mr) {
        return Mlx5Ffi.localInfo(Mlx5Ffi.V.GPU_QP_LOCAL_INFO, "marrow_mlx5_gpu_qp_local_info", handle, mr);
    }

    @Override
    public void connect(PeerInfo peer, ConnParams params) {
        Mlx5Ffi.connect(Mlx5Ffi.V.GPU_QP_CONNECT, "marrow_mlx5_gpu_qp_connect", handle, peer, params);
    }

    /**
     * Back to RESET with the 2RST_QP command (marrow_mlx5_gpu_qp_reset), so that
     * {@link #connect} brings it to RTS again: the SQ restarts at counter 0 (its
     * doorbell record is cleared), the CQ keeps its consumer index.
     */
    @Override
    public void reset() {
        try {
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.GPU_QP_RESET.invokeExact(handle), "marrow_mlx5_gpu_qp_reset");
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    /** The doorbell records, copied out of GPU memory (the host cannot load it). */
    public Indexes indexes() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pi = a.allocate(JAVA_INT);
            MemorySegment ci = a.allocate(JAVA_INT);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.GPU_QP_INDEXES.invokeExact(handle, pi, ci), "marrow_mlx5_gpu_qp_indexes");
            return new Indexes(pi.get(JAVA_INT, 0), ci.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    /** QP, CQ, umems, UAR, then the GPU memory (marrow_mlx5_gpu_qp_destroy). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true; // the C side releases everything even when a step fails
        try {
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.GPU_QP_DESTROY.invokeExact(handle), "marrow_mlx5_gpu_qp_destroy");
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        } finally {
            views.close();
        }
    }
}
