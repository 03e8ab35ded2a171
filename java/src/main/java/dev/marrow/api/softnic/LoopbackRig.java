// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The usual measurement set-up on the software NIC: one device, one CQ, one
 * RC QP connected to itself, a source and a destination buffer. Closing it
 * frees everything in the right order.
 */
public final class LoopbackRig implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final SoftNic nic;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion source;
    private final MemoryRegion destination;

    public LoopbackRig(SoftNic.Options options, int logSqWqebbs, int logCqEntries, int maxInline, long bufferBytes) {
        SoftNic n = SoftNic.open(options);
        try {
            this.cq = n.createCompletionQueue(logCqEntries, false, false);
            this.qp = n.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(logSqWqebbs).withMaxInlineData(maxInline));
            MemorySegment src = arena.allocate(bufferBytes, 4096);
            MemorySegment dst = arena.allocate(bufferBytes, 4096);
            for (long i = 0; i < bufferBytes; i++) {
                src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            this.source = n.registerMemory(src, Access.LOCAL_WRITE);
            this.destination = n.registerMemory(dst, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            qp.connect(qp);
        } catch (RuntimeException e) {
            n.close();
            arena.close();
            throw e;
        }
        this.nic = n;
    }

    public SoftNic nic() {
        return nic;
    }

    public CompletionQueue cq() {
        return cq;
    }

    public QueuePair qp() {
        return qp;
    }

    public MemoryRegion source() {
        return source;
    }

    public MemoryRegion destination() {
        return destination;
    }

    @Override
    public void close() {
        try {
            nic.close();
        } finally {
            arena.close();
        }
    }
}
