// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.api.Backend;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.fabric.Fabric;
import dev.marrow.fabric.LoopbackQueues;
import dev.marrow.fabric.Target;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The queues of the kernel-cost experiment's mini-gda arms, built by the {@link Fabric}
 * ({@link LoopbackQueues}): one software-NIC RC
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

    private final Fabric fabric;
    private final MemorySegment endpoints;
    private final int count;

    private KernelCostQueues(Fabric fabric, MemorySegment endpoints, int count) {
        this.fabric = fabric;
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
        return open(Fabric.Options.softNic("kernel-cost", Target.CPU)
                .withEngine(SoftNic.PollMode.HOT, engineThreads, engineCpu, null), blocks, maxBytes);
    }

    /** blocks QPs for messages of up to maxBytes on the fabric of o (the software NIC, or mlx5 with cuda). */
    public static KernelCostQueues open(Fabric.Options o, int blocks, int maxBytes) {
        if (blocks < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("blocks and message size must be >= 1");
        }
        Fabric f = Fabric.open(o);
        try {
            long slice = (maxBytes + 63L) / 64 * 64;
            // the source is prefilled: the GPU never writes a payload
            LoopbackQueues q = f.loopback(blocks, new Fabric.QueueShape(LOG_SQ, LOG_CQ, 64),
                    LoopbackQueues.Buffers.sliced(slice, blocks, 0x5a));
            return new KernelCostQueues(f, q.endpoints(), blocks);
        } catch (RuntimeException e) {
            f.closeAfter(e);
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

    /** The software NIC behind the queues; null on mlx5. */
    public SoftNic softNic() {
        return fabric.softNic();
    }

    @Override
    public void close() {
        fabric.close();   // engines stop before the memory they read goes
    }
}
