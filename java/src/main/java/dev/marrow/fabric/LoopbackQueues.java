// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.fabric.internal.EndpointLayout;
import dev.marrow.mlx5.HardwareQueuePair;
import dev.marrow.mlx5.Mlx5MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * {@code count} RC QPs, each connected to itself (loopback: its WRITEs land in this process's
 * destination buffer) with its own send CQ, one registered source and one registered destination
 * buffer, and the contiguous marrow_gda_endpoint array the runners take (endpoint i at index i).
 * The queue set of rate, goodput and kernel-cost; on the software NIC (CPU engine) and on mlx5
 * (verbs QPs, host placement). The memory belongs to the {@link Fabric}, which closes it.
 *
 * @param endpoints struct marrow_gda_endpoint[count]
 * @param source      the registered source buffer (all endpoints')
 * @param destination the registered destination buffer (all endpoints')
 * @param rkey        the destination's rkey
 */
public record LoopbackQueues(MemorySegment endpoints, int count, MemorySegment source, MemorySegment destination,
                             int rkey) {

    /**
     * The buffers: {@code bytes} each for source and destination (rounded up to pages). slice 0:
     * every endpoint covers both whole buffers (the runner gives each its own slots); slice &gt; 0:
     * endpoint i covers bytes [i * slice, (i + 1) * slice) of each. fill: the source's bytes before
     * any run (-1: left zero).
     */
    public record Buffers(long bytes, long slice, int fill) {
        public static Buffers shared(long bytes) {
            return new Buffers(bytes, 0, -1);
        }

        public static Buffers sliced(long slice, int count, int fill) {
            return new Buffers(slice * count, slice, fill);
        }
    }

    static LoopbackQueues open(Fabric f, int count, Fabric.QueueShape shape, Buffers b) {
        if (count < 1) {
            throw new IllegalArgumentException("a loopback queue set needs at least one QP, not " + count);
        }
        long n = (b.bytes() + 4095) & ~4095L;
        long epSize = EndpointLayout.ENDPOINT.byteSize();
        MemorySegment eps = f.arena().allocate(epSize * count, 8);
        Placement placement = f.options().placement();
        if (f.softNic() != null) {
            SoftNic nic = f.softNic();
            MemoryRegion src = nic.registerMemory(f.arena().allocate(n, 4096), Access.LOCAL_WRITE);
            MemoryRegion dst = nic.registerMemory(f.arena().allocate(n, 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            if (b.fill() >= 0) {
                src.memory().fill((byte) b.fill());
            }
            for (int i = 0; i < count; i++) {
                CompletionQueue cq = nic.createCompletionQueue(shape.logCq(), false, false);
                QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(shape.logSq())
                        .withMaxInlineData(shape.maxInline()));
                qp.connect(qp);
                MemorySegment ep = Endpoints.endpoint(f.arena(), Nic.SOFTNIC, placement, Endpoints.qpView(f.arena(), qp),
                        Endpoints.cqView(f.arena(), cq), buffers(b, i, n, src.address(), src.lkey(), dst.address(),
                                dst.rkey()));
                MemorySegment.copy(ep, 0, eps, i * epSize, epSize);
            }
            return new LoopbackQueues(eps, count, src.memory(), dst.memory(), dst.rkey());
        }
        if (f.mlx5Device() == null) {
            throw new IllegalStateException("the device engine's queues are built in the runner library");
        }
        if (placement != Placement.HOST) {
            throw new IllegalArgumentException("--nic mlx5 --placement gpu: loopback queue sets are verbs QPs in "
                    + "host memory (the DevX GPU-resident QPs serve the latency pair)");
        }
        Mlx5MemoryRegion src = f.registerMlx5(n, Access.LOCAL_WRITE);
        Mlx5MemoryRegion dst = f.registerMlx5(n, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        if (b.fill() >= 0) {
            src.buffer().fill((byte) b.fill());
        }
        for (int i = 0; i < count; i++) {
            HardwareQueuePair qp = f.newMlx5QueuePair(shape);
            qp.connect(qp.localInfo(dst), null); // loopback: the QP is its own peer
            MemorySegment ep = Endpoints.endpoint(f.arena(), Nic.MLX5, placement, qp.qpView(), qp.cqView(),
                    buffers(b, i, n, src.buffer().address(), src.lkey(), dst.buffer().address(), dst.rkey()));
            MemorySegment.copy(ep, 0, eps, i * epSize, epSize);
        }
        return new LoopbackQueues(eps, count, src.buffer(), dst.buffer(), dst.rkey());
    }

    private static Endpoints.Buffers buffers(Buffers b, int i, long n, long src, int lkey, long dst, int rkey) {
        if (b.slice() == 0) {
            return new Endpoints.Buffers(src, n, lkey, 0, dst, n, rkey);
        }
        long off = i * b.slice();
        return new Endpoints.Buffers(src + off, b.slice(), lkey, 0, dst + off, b.slice(), rkey);
    }
}
