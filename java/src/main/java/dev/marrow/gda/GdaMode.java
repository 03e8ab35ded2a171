// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.ShmWire;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.mlx5.Mlx5Device;
import dev.marrow.mlx5.Mlx5MemoryRegion;
import dev.marrow.mlx5.HardwareQueuePair;
import dev.marrow.mlx5.PeerExchange;
import dev.marrow.mlx5.PeerInfo;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/**
 * How one {@link MiniGda} session holds its queues: each mode carries exactly
 * the resources it owns, so no field is "null because of the mode". The
 * execution target (cpu, cuda) is not a mode: any mode's endpoints serve
 * either runner ({@link GdaSetup#target()}).
 */
sealed interface GdaMode {

    /**
     * Both QPs in this process, connected to each other: A (epA) posts into
     * B's inbox, B (epB) is the round-trip peer. reconnect brings both QPs
     * RESET -> RTS after a failed run.
     */
    record LocalPair(MemorySegment epA, MemorySegment epB, MemorySegment inboxA, MemorySegment inboxB,
                     Runnable reconnect) {
    }

    /**
     * The objects of an mlx5 session, closed QPs first (a DevX QP frees its GPU memory last), then MRs,
     * then the device. qps: [A, B] on one host, [this side's] across hosts.
     */
    record Mlx5Queues(Mlx5Device device, List<HardwareQueuePair> qps, List<Mlx5MemoryRegion> mrs) {
    }

    /** The initiator's endpoint (A) and the buffer where the peer's writes land. */
    MemorySegment initiator();

    MemorySegment inbox();

    /**
     * Two QPs on the software NIC (target cpu or cuda). qpA, qpB: the pair's QPs (A probes, B answers), for
     * engine placement (GdaLoaded).
     */
    record SoftNicPair(SoftNic nic, LocalPair pair, QueuePair qpA, QueuePair qpB) implements GdaMode {
        public MemorySegment initiator() {
            return pair.epA();
        }

        public MemorySegment inbox() {
            return pair.inboxA();
        }
    }

    /** Two QPs on one ConnectX, connected to each other (one host): verbs, or DevX with GPU-resident queues. */
    record Mlx5Pair(Mlx5Queues hw, String connection, LocalPair pair) implements GdaMode {
        public MemorySegment initiator() {
            return pair.epA();
        }

        public MemorySegment inbox() {
            return pair.inboxA();
        }
    }

    /**
     * One QP here, its peer in another process or host (--peer): the run
     * control of {@link GdaPeerProtocol} over the exchange, the peer's
     * environment header, and the close order (closing barrier, exchange,
     * then this side's queues).
     */
    sealed interface TwoSided extends GdaMode {
        PeerExchange exchange();

        String connection();

        /** The peer's environment header (ENV message). */
        Map<String, Object> peerEnv();

        /** Why this side cannot serve a round trip's peer role, or null. */
        String rttRefusal();
    }

    /**
     * One verbs QP connected to another host's (--peer). rttRefusal: why
     * this side (a responder without a GPU) cannot serve a round trip, or null.
     */
    record Mlx5Peer(Mlx5Queues hw, PeerExchange exchange, String connection, MemorySegment ep, MemorySegment inbox,
                    String rttRefusal, Map<String, Object> peerEnv) implements TwoSided {
        public MemorySegment initiator() {
            return ep;
        }
    }

    /**
     * One software-NIC QP connected over the shared-memory wire to a QP of
     * another process on this host (--peer on --nic softnic,
     * docs/design/two-process.md). The inbox lies in this process's wire
     * segment; nic.close() tears the wire down before the arena goes.
     * peerWire and remote (the peer's QPN, inbox and rkey) let a loaded run
     * connect background QPs of its own to the peer's QP.
     */
    record SoftNicPeer(SoftNic nic, PeerExchange exchange, String connection, MemorySegment ep, MemorySegment inbox,
                       Map<String, Object> peerEnv, ShmWire.Peer peerWire, PeerInfo remote,
                       dev.marrow.api.softnic.QueuePair qp) implements TwoSided {
        public MemorySegment initiator() {
            return ep;
        }

        /** The responder serves the round trip on its own target (cpu or cuda), checked when it opened. */
        public String rttRefusal() {
            return null;
        }
    }

    /**
     * Placement gpu on the software NIC: SQ, CQ, DBRs, doorbell pages and
     * buffers in GPU memory, served by the device engine's persistent kernel
     * (docs/design/device-engine.md). The inboxes are GPU memory: the kernel
     * validates every iteration's bytes itself, so no inbox is exposed here.
     */
    record DeviceEngine(DeviceEngineSession engine, MemorySegment epA, MemorySegment epB) implements GdaMode {
        public MemorySegment initiator() {
            return epA;
        }

        public MemorySegment inbox() {
            throw new IllegalStateException("placement gpu: the inboxes are GPU memory; the kernel validates them");
        }
    }
}
