// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.fabric.internal.EndpointFlag;
import dev.marrow.fabric.internal.EndpointLayout;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static dev.marrow.internal.ffi.CStruct.setAddress;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;

/**
 * The device-side view of a connected queue pair: struct marrow_gda_endpoint over a QP's and a
 * CQ's views (struct marrow_qp_view / marrow_cq_view). Every queue set the {@link Fabric} hands
 * out is an array of these, whichever NIC and placement built it.
 */
public final class Endpoints {
    private Endpoints() {
    }

    /** MARROW_GDA_EP_UAR_MMIO of marrow_gda.h (value from the library). */
    public static final int EP_UAR_MMIO = EndpointFlag.UAR_MMIO.code();
    /** MARROW_GDA_EP_REMOTE_DST of marrow_gda.h (value from the library). */
    public static final int EP_REMOTE_DST = EndpointFlag.REMOTE_DST.code();

    /** Where one endpoint's writes come from (lkey) and go to (rkey), and where the peer's writes land. */
    public record Buffers(long localAddr, long localLen, int lkey, long inboxAddr, long remoteAddr, long remoteLen,
                          int rkey) {
    }

    /**
     * A marrow_gda_endpoint over a QP's and CQ's views. On mlx5 the UAR is
     * device MMIO: MARROW_GDA_EP_UAR_MMIO makes the CUDA runner map it with
     * io_memory (PeerMappingOverride=1); the software NIC's mailbox is RAM.
     * The runner registers the views' host memory itself per run, so the
     * queues must not also be mapped with Mlx5QueuePair.mapIntoGpu.
     */
    public static MemorySegment endpoint(Arena arena, Nic nic, Placement placement, MemorySegment qpView,
                                         MemorySegment cqView, Buffers b) {
        return endpoint(arena, nic, placement, qpView, cqView, b, false);
    }

    /** remoteDst: the destination is another host's memory (MARROW_GDA_EP_REMOTE_DST). */
    public static MemorySegment endpoint(Arena arena, Nic nic, Placement placement, MemorySegment qpView,
                                         MemorySegment cqView, Buffers b, boolean remoteDst) {
        StructLayout el = EndpointLayout.ENDPOINT;
        MemorySegment ep = CStruct.allocate(arena, el);
        setInt(ep, el, "placement", placement.code());
        setInt(ep, el, "lkey", b.lkey());
        setAddress(ep, el, "qp", qpView);
        setAddress(ep, el, "cq", cqView);
        setLong(ep, el, "local_addr", b.localAddr());
        setLong(ep, el, "local_len", b.localLen());
        setLong(ep, el, "inbox_addr", b.inboxAddr());
        setLong(ep, el, "remote_addr", b.remoteAddr());
        setLong(ep, el, "remote_len", b.remoteLen());
        setInt(ep, el, "rkey", b.rkey());
        setInt(ep, el, "flags", (nic == Nic.MLX5 ? EP_UAR_MMIO : 0) | (remoteDst ? EP_REMOTE_DST : 0));
        return ep;
    }

    /** struct marrow_qp_view of a softnic QP. */
    public static MemorySegment qpView(Arena arena, QueuePair q) {
        StructLayout qv = EmuLayouts.QP_VIEW;
        MemorySegment qpView = CStruct.allocate(arena, qv);
        setInt(qpView, qv, "qpn", q.qpn());
        setInt(qpView, qv, "sq_wqe_cnt", q.sqWqebbs());
        setInt(qpView, qv, "sq_stride", q.sqStride());
        setInt(qpView, qv, "max_inline_data", q.maxInlineData());
        setAddress(qpView, qv, "sq_buf", q.sendQueue());
        setAddress(qpView, qv, "rq_buf", MemorySegment.NULL);
        setAddress(qpView, qv, "dbrec", q.dbrec());
        setAddress(qpView, qv, "uar", q.uar());
        setLong(qpView, qv, "uar_size", q.uar().byteSize());
        return qpView;
    }

    /** struct marrow_cq_view of a softnic CQ. */
    public static MemorySegment cqView(Arena arena, CompletionQueue cq) {
        StructLayout cv = EmuLayouts.CQ_VIEW;
        MemorySegment cqView = CStruct.allocate(arena, cv);
        setInt(cqView, cv, "cqn", cq.cqn());
        setInt(cqView, cv, "cqe_cnt", cq.entries());
        setInt(cqView, cv, "cqe_size", cq.cqeSize());
        setInt(cqView, cv, "flags", cq.flags());
        setAddress(cqView, cv, "buf", cq.buffer());
        setAddress(cqView, cv, "dbrec", cq.dbrec());
        return cqView;
    }
}
