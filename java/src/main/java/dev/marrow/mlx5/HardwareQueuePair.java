// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.peer.PeerInfo;
import java.lang.foreign.MemorySegment;

/**
 * An mlx5 RC queue pair as mini-gda drives it, wherever its queues live:
 * {@link Mlx5QueuePair} (verbs, host memory) or {@link Mlx5GpuQueuePair}
 * (DevX, GPU memory). The views are the raw {@code struct marrow_qp_view} /
 * {@code marrow_cq_view} the gda runners take.
 */
public interface HardwareQueuePair extends AutoCloseable {

    int qpn();

    /** SQ size in 64-byte WQEBBs. */
    int sqWqebbs();

    MemorySegment qpView();

    MemorySegment cqView();

    /** This side's half of the exchange; mr (may be null) is the buffer the peer may write. */
    PeerInfo localInfo(Mlx5MemoryRegion mr);

    /** RESET -> INIT -> RTR -> RTS towards peer; params null = the C defaults. */
    void connect(PeerInfo peer, ConnParams params);

    /** Back to RESET so that {@link #connect} may run again (after a failed run). */
    void reset();

    @Override
    void close();
}
