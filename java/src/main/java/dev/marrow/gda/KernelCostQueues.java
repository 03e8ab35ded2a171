// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.Backend;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.internal.GdaLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The queues of the kernel-cost experiment's mini-gda arms: one software-NIC RC
 * QP per block, connected to itself (loopback), with its own send CQ, and
 * one contiguous array of struct marrow_gda_endpoint (block b's at index b)
 * for marrow_kcost_run. Every block writes its messages from its own slice
 * of one registered source buffer into its own slice of one registered
 * destination buffer. The NIC is the software NIC: results over these
 * queues say "nic_hardware": false.
 */
public final class KernelCostQueues implements AutoCloseable {
    /** SQ of 64 WQEBBs and CQ of 64 entries: room for the 16 sends a block may leave outstanding. */
    static final int LOG_SQ = 6;
    static final int LOG_CQ = 6;

    private final SoftNic nic;
    private final Arena arena;
    private final MemorySegment endpoints;
    private final int count;

    private KernelCostQueues(SoftNic nic, Arena arena, MemorySegment endpoints, int count) {
        this.nic = nic;
        this.arena = arena;
        this.endpoints = endpoints;
        this.count = count;
    }

    /**
     * blocks QPs for messages of up to maxBytes. engineThreads software-NIC
     * engines (hot polling), pinned from engineCpu on when it is >= 0.
     */
    public static KernelCostQueues open(int blocks, int maxBytes, int engineThreads, int engineCpu) {
        if (blocks < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("blocks and message size must be >= 1");
        }
        Backend.SOFTNIC.ensureAvailability();
        SoftNic nic = SoftNic.open(SoftNic.Options.defaults().withPollMode(SoftNic.PollMode.HOT)
                .withEngineThreads(engineThreads).withEngineCpu(engineCpu).withQuiet(true));
        Arena arena = Arena.ofShared();
        try {
            long slice = (maxBytes + 63L) / 64 * 64;
            long bytes = slice * blocks;
            MemoryRegion src = nic.registerMemory(arena.allocate(bytes, 4096), Access.LOCAL_WRITE);
            MemoryRegion dst = nic.registerMemory(arena.allocate(bytes, 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            src.memory().fill((byte) 0x5a); // the source is prefilled: the GPU never writes a payload
            long epSize = GdaLayouts.ENDPOINT.byteSize();
            MemorySegment eps = arena.allocate(epSize * blocks, 8);
            for (int b = 0; b < blocks; b++) {
                CompletionQueue cq = nic.createCompletionQueue(LOG_CQ, false, false);
                QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(LOG_SQ)
                        .withMaxInlineData(64));
                qp.connect(qp);
                MemorySegment ep = MiniGda.endpoint(arena, Nic.SOFTNIC, Placement.HOST, MiniGda.qpView(arena, qp),
                        MiniGda.cqView(arena, cq), new MiniGda.Buffers(src.address() + b * slice, slice, src.lkey(),
                                0, dst.address() + b * slice, slice, dst.rkey()));
                MemorySegment.copy(ep, 0, eps, b * epSize, epSize);
            }
            return new KernelCostQueues(nic, arena, eps, blocks);
        } catch (RuntimeException e) {
            nic.close();
            arena.close();
            throw e;
        }
    }

    /** struct marrow_gda_endpoint[count], block b's at index b. */
    public MemorySegment endpoints() {
        return endpoints;
    }

    public int count() {
        return count;
    }

    public SoftNic softNic() {
        return nic;
    }

    @Override
    public void close() {
        nic.close();   // engines stop before the memory they read goes
        arena.close();
    }
}
