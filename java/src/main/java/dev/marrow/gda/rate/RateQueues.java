// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.api.Backend;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.fabric.Fabric;
import dev.marrow.fabric.LoopbackQueues;
import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;

import java.lang.foreign.MemorySegment;

/**
 * The queues of one rate point, built by the {@link Fabric} ({@link LoopbackQueues}):
 * spec.endpoints() RC QPs, each connected to itself (loopback: its WRITEs land in this
 * process's destination buffer), each with its own send CQ, one registered source and one
 * destination buffer shared by all, and the marrow_gda_endpoint array the runners take.
 * Fresh per point (a run leaves the SQ counters at its own WQE size).
 * Backends: the software NIC (CPU engine threads) and mlx5 (verbs QPs on a
 * ConnectX; cuda only). The GPU-resident software NIC engine's queues live
 * in GPU memory and are built natively (DeviceEngineRate).
 */
final class RateQueues implements AutoCloseable {
    /** Upper bound of the destination buffer: threads share it as per-thread slot ranges. */
    static final long MAX_DST_BYTES = 64L << 20;

    private final Fabric fabric;
    final MemorySegment endpoints;
    final int count;

    private RateQueues(Fabric fabric, MemorySegment endpoints, int count) {
        this.fabric = fabric;
        this.endpoints = endpoints;
        this.count = count;
    }

    /** Destination bytes: one slot per message per thread, up to MAX_DST_BYTES (slots then wrap). */
    static long destinationBytes(RateSpec s) {
        long stride = (s.size() + 63L) & ~63L;
        long perThread = Math.min(s.messages() + s.warmup(), Math.max(1, MAX_DST_BYTES / stride / s.totalThreads()));
        return Math.max(4096, (perThread * stride * s.totalThreads() + 4095) & ~4095L);
    }

    /** The fabric of a rate point: its NIC, the engine threads and their CPUs; queues in host memory. */
    static Fabric.Options fabricOptions(RateSpec s) {
        Nic nic = switch (s.nic()) {
            case SOFTNIC -> Nic.SOFTNIC;
            case MLX5 -> Nic.MLX5;
            case SOFTNIC_DEVICE -> throw new IllegalStateException("--nic softnic-device builds its queues in "
                    + "DeviceEngineRate (GPU memory), not here");
        };
        return Fabric.Options.softNic("mini-gda rate", s.target()).withNic(nic, Placement.HOST)
                .withEngine(s.idlePoll() ? SoftNic.PollMode.IDLE : SoftNic.PollMode.HOT, s.engineThreads(), -1,
                        s.engineCpus());
    }

    static RateQueues open(RateSpec s) {
        if (s.target() == Target.CUDA) {
            Backend.CUDA.ensureAvailability();
        }
        Fabric f = Fabric.open(fabricOptions(s));
        try {
            // twice the SQ's WQEBBs: room for a CQE per WQE of a full window plus the final one
            LoopbackQueues q = f.loopback(s.endpoints(), new Fabric.QueueShape(s.logSq(), s.logSq() + 1, 220),
                    LoopbackQueues.Buffers.shared(destinationBytes(s)));
            return new RateQueues(f, q.endpoints(), q.count());
        } catch (RuntimeException e) {
            f.closeAfter(e);
            throw e;
        }
    }

    SoftNicCounters counters() {
        return fabric.softNic() == null ? null : fabric.softNic().counters();
    }

    /** The software NIC of these queues (null on mlx5). */
    SoftNic softNic() {
        return fabric.softNic();
    }

    /** The engine's view of one QP after a timeout (empty when not a software NIC). */
    String watchdogDump(long qpn) {
        return fabric.softNic() == null ? "" : fabric.softNic().watchdogDump(qpn);
    }

    @Override
    public void close() {
        fabric.close();
    }
}
