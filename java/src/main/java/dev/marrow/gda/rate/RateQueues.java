// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.gda.Placement;
import dev.marrow.gda.Target;
import dev.marrow.gda.internal.EndpointFlag;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.mlx5.Mlx5Device;
import dev.marrow.mlx5.Mlx5MemoryRegion;
import dev.marrow.mlx5.Mlx5QueuePair;
import dev.marrow.mlx5.QueuePlacement;
import dev.marrow.gda.Mlx5Options;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.ArrayList;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.setAddress;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;

/**
 * The queues of one rate point: spec.endpoints() RC QPs, each connected to
 * itself (loopback: its WRITEs land in this process's destination buffer),
 * each with its own send CQ, one registered source and one destination
 * buffer shared by all, and the marrow_gda_endpoint array the runners take.
 * Fresh per point (a run leaves the SQ counters at its own WQE size).
 * Backends: the software NIC (CPU engine threads) and mlx5 (verbs QPs on a
 * ConnectX; cuda only). The GPU-resident software NIC engine's queues live
 * in GPU memory and are built natively (DeviceEngineRate).
 */
final class RateQueues implements AutoCloseable {
    /** Upper bound of the destination buffer: threads share it as per-thread slot ranges. */
    static final long MAX_DST_BYTES = 64L << 20;

    private final Arena arena;
    private final SoftNic nic;
    private final Mlx5Device device;
    private final List<AutoCloseable> closeFirst; // mlx5 QPs, then MRs
    final MemorySegment endpoints;
    final int count;

    private RateQueues(Arena arena, SoftNic nic, Mlx5Device device, List<AutoCloseable> closeFirst,
                       MemorySegment endpoints, int count) {
        this.arena = arena;
        this.nic = nic;
        this.device = device;
        this.closeFirst = closeFirst;
        this.endpoints = endpoints;
        this.count = count;
    }

    /** Destination bytes: one slot per message per thread, up to MAX_DST_BYTES (slots then wrap). */
    static long destinationBytes(RateSpec s) {
        long stride = (s.size() + 63L) & ~63L;
        long perThread = Math.min(s.messages() + s.warmup(), Math.max(1, MAX_DST_BYTES / stride / s.totalThreads()));
        return Math.max(4096, (perThread * stride * s.totalThreads() + 4095) & ~4095L);
    }

    static RateQueues open(RateSpec s) {
        if (s.target() == Target.CUDA) {
            Backend.CUDA.ensureAvailability();
        }
        return switch (s.nic()) {
            case SOFTNIC -> openSoftNic(s);
            case MLX5 -> openMlx5(s);
            case SOFTNIC_DEVICE -> throw new IllegalStateException("--nic softnic-device builds its queues in "
                    + "DeviceEngineRate (GPU memory), not here");
        };
    }

    SoftNicCounters counters() {
        return nic == null ? null : nic.counters();
    }

    /** The software NIC of these queues (null on mlx5). */
    SoftNic softNic() {
        return nic;
    }

    /** The engine's view of one QP after a timeout (empty when not a software NIC). */
    String watchdogDump(long qpn) {
        return nic == null ? "" : nic.watchdogDump(qpn);
    }

    private static RateQueues openSoftNic(RateSpec s) {
        Backend.SOFTNIC.ensureAvailability();
        SoftNic nic = SoftNic.open(SoftNic.Options.defaults()
                .withPollMode(s.idlePoll() ? SoftNic.PollMode.IDLE : SoftNic.PollMode.HOT)
                .withEngineThreads(s.engineThreads()).withQuiet(true));
        Arena arena = Arena.ofShared();
        try {
            if (s.engineCpus() != null) {
                try {
                    nic.pinEngines(s.engineCpus());
                } catch (NativeException e) {
                    throw new IllegalArgumentException("--engine-cpus: " + e.getMessage(), e);
                }
            }
            long n = destinationBytes(s);
            MemoryRegion dst = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemoryRegion src = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE);
            MemorySegment eps = arena.allocate(GdaLayouts.ENDPOINT, s.endpoints());
            for (int i = 0; i < s.endpoints(); i++) {
                // twice the SQ's WQEBBs: room for a CQE per WQE of a full window plus the final one
                CompletionQueue cq = nic.createCompletionQueue(s.logSq() + 1, false, false);
                QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(s.logSq())
                        .withMaxInlineData(220));
                qp.connect(qp);
                fill(slot(eps, i), qpView(arena, qp), cqView(arena, cq), src.address(), src.lkey(), dst.address(),
                        n, dst.rkey(), 0);
            }
            return new RateQueues(arena, nic, null, List.of(), eps, s.endpoints());
        } catch (RuntimeException e) {
            nic.close();
            arena.close();
            throw e;
        }
    }

    private static RateQueues openMlx5(RateSpec s) {
        Backend.VERBS.ensureAvailability();
        Mlx5Options o = Mlx5Options.defaults();
        Mlx5Device dev;
        try {
            dev = Mlx5Device.open(o.device(), o.port(), o.gidIndex());
        } catch (NativeException e) {
            throw e.unavailableIfNoDevice("mini-gda rate on mlx5: " + e.getMessage());
        }
        Arena arena = Arena.ofShared();
        List<AutoCloseable> qps = new ArrayList<>();
        List<AutoCloseable> mrs = new ArrayList<>();
        try {
            long n = destinationBytes(s);
            Mlx5MemoryRegion dst = dev.register(arena.allocate(n, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            mrs.add(dst);
            Mlx5MemoryRegion src = dev.register(arena.allocate(n, 4096), Access.LOCAL_WRITE);
            mrs.add(src);
            MemorySegment eps = arena.allocate(GdaLayouts.ENDPOINT, s.endpoints());
            Mlx5QueuePair.Config d = Mlx5QueuePair.Config.defaults();
            for (int i = 0; i < s.endpoints(); i++) {
                Mlx5QueuePair qp = dev.createQueuePair(new Mlx5QueuePair.Config(s.logSq(), s.logSq() + 1, 220, d.access(),
                        QueuePlacement.HOST, d.sqPsn()));
                qps.add(qp);
                qp.connect(qp.localInfo(dst), null); // loopback: the QP is its own peer
                fill(slot(eps, i), qp.qpView(), qp.cqView(), src.buffer().address(), src.lkey(),
                        dst.buffer().address(), n, dst.rkey(), EndpointFlag.UAR_MMIO.code());
            }
            List<AutoCloseable> order = new ArrayList<>(qps.reversed());
            order.addAll(mrs.reversed());
            return new RateQueues(arena, null, dev, order, eps, s.endpoints());
        } catch (RuntimeException e) {
            List<AutoCloseable> order = new ArrayList<>(qps.reversed());
            order.addAll(mrs.reversed());
            closeAll(order, dev, arena, e);
            throw e;
        }
    }

    private static MemorySegment slot(MemorySegment eps, int i) {
        long sz = GdaLayouts.ENDPOINT.byteSize();
        return eps.asSlice(i * sz, sz);
    }

    private static void fill(MemorySegment ep, MemorySegment qpView, MemorySegment cqView, long src, int lkey, long dst,
                             long len, int rkey, int flags) {
        StructLayout el = GdaLayouts.ENDPOINT;
        setInt(ep, el, "size", (int) el.byteSize());
        setInt(ep, el, "placement", Placement.HOST.code());
        setInt(ep, el, "lkey", lkey);
        setAddress(ep, el, "qp", qpView);
        setAddress(ep, el, "cq", cqView);
        setLong(ep, el, "local_addr", src);
        setLong(ep, el, "local_len", len);
        setLong(ep, el, "inbox_addr", 0);
        setLong(ep, el, "remote_addr", dst);
        setLong(ep, el, "remote_len", len);
        setInt(ep, el, "rkey", rkey);
        setInt(ep, el, "flags", flags);
    }

    private static MemorySegment qpView(Arena arena, QueuePair q) {
        StructLayout qv = EmuLayouts.QP_VIEW;
        MemorySegment v = CStruct.allocate(arena, qv);
        setInt(v, qv, "qpn", q.qpn());
        setInt(v, qv, "sq_wqe_cnt", q.sqWqebbs());
        setInt(v, qv, "sq_stride", q.sqStride());
        setInt(v, qv, "max_inline_data", q.maxInlineData());
        setAddress(v, qv, "sq_buf", q.sendQueue());
        setAddress(v, qv, "rq_buf", MemorySegment.NULL);
        setAddress(v, qv, "dbrec", q.dbrec());
        setAddress(v, qv, "uar", q.uar());
        setLong(v, qv, "uar_size", q.uar().byteSize());
        return v;
    }

    private static MemorySegment cqView(Arena arena, CompletionQueue cq) {
        StructLayout cv = EmuLayouts.CQ_VIEW;
        MemorySegment v = CStruct.allocate(arena, cv);
        setInt(v, cv, "cqn", cq.cqn());
        setInt(v, cv, "cqe_cnt", cq.entries());
        setInt(v, cv, "cqe_size", cq.cqeSize());
        setInt(v, cv, "flags", cq.flags());
        setAddress(v, cv, "buf", cq.buffer());
        setAddress(v, cv, "dbrec", cq.dbrec());
        return v;
    }

    private static void closeAll(List<AutoCloseable> order, Mlx5Device dev, Arena arena, Throwable first) {
        for (AutoCloseable c : order) {
            try {
                c.close();
            } catch (Exception e) {
                if (first != null) {
                    first.addSuppressed(e);
                }
            }
        }
        try {
            dev.close();
        } catch (RuntimeException e) {
            if (first != null) {
                first.addSuppressed(e);
            }
        }
        arena.close();
    }

    @Override
    public void close() {
        if (nic != null) {
            try {
                nic.close();
            } finally {
                arena.close();
            }
            return;
        }
        closeAll(closeFirst, device, arena, null);
    }
}
