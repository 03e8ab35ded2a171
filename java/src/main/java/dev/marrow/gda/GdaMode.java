// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.ShmWire;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.fabric.PairQueues;
import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerInfo;

import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * Which queue set of the {@link dev.marrow.fabric.Fabric} one {@link MiniGda} session runs on;
 * each mode carries exactly what it uses, so no field is "null because of the mode". The fabric
 * owns every resource. The execution target (cpu, cuda) is not a mode: any mode's endpoints serve
 * either runner ({@link GdaSetup#target()}).
 */
sealed interface GdaMode {

    /** The initiator's endpoint (A) and the buffer where the peer's writes land. */
    MemorySegment initiator();

    MemorySegment inbox();

    /** Both QPs in this process (software NIC or one mlx5 host). */
    sealed interface Local extends GdaMode {
        PairQueues.Pair pair();

        default MemorySegment initiator() {
            return pair().epA();
        }

        default MemorySegment inbox() {
            return pair().inboxA();
        }
    }

    /** Two QPs on the software NIC's CPU engine (target cpu or cuda); qpA probes, qpB answers (GdaLoaded). */
    record SoftNicPair(SoftNic nic, PairQueues.Pair pair) implements Local {
        QueuePair qpA() {
            return pair.qpA();
        }

        QueuePair qpB() {
            return pair.qpB();
        }
    }

    /** Two QPs on one ConnectX, connected to each other (one host): verbs, or DevX with GPU-resident queues. */
    record Mlx5Pair(PairQueues.Pair pair) implements Local {
        String connection() {
            return pair.connection();
        }
    }

    /**
     * One QP here, its peer in another process or host (--peer): the run
     * control of {@link GdaPeerProtocol} over the exchange, the peer's
     * environment header, and the close order (closing barrier, exchange,
     * then this side's queues).
     */
    sealed interface TwoSided extends GdaMode {
        PairQueues.Peer peer();

        /** Why this side cannot serve a round trip's peer role, or null. */
        String rttRefusal();

        default PeerExchange exchange() {
            return peer().exchange();
        }

        default String connection() {
            return peer().connection();
        }

        /** The peer's environment header (ENV message). */
        default Map<String, Object> peerEnv() {
            return peer().peerEnv();
        }

        default MemorySegment initiator() {
            return peer().ep();
        }

        default MemorySegment inbox() {
            return peer().inbox();
        }
    }

    /**
     * One verbs QP connected to another host's (--peer). rttRefusal: why
     * this side (a responder without a GPU) cannot serve a round trip, or null.
     */
    record Mlx5Peer(PairQueues.Peer peer, String rttRefusal) implements TwoSided {
    }

    /**
     * One software-NIC QP connected over the shared-memory wire to a QP of
     * another process on this host (--peer on --nic softnic,
     * docs/design/two-process.md). The inbox lies in this process's wire
     * segment. peerWire and remote (the peer's QPN, inbox and rkey) let a
     * loaded run connect background QPs of its own to the peer's QP.
     */
    record SoftNicPeer(SoftNic nic, PairQueues.Peer peer) implements TwoSided {
        /** The responder serves the round trip on its own target (cpu or cuda), checked when it opened. */
        public String rttRefusal() {
            return null;
        }

        MemorySegment ep() {
            return peer.ep();
        }

        QueuePair qp() {
            return peer.qp();
        }

        ShmWire.Peer peerWire() {
            return peer.peerWire();
        }

        PeerInfo remote() {
            return peer.remote();
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
