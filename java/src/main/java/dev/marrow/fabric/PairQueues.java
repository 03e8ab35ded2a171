// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QpState;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.ShmWire;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.mlx5.HardwareQueuePair;
import dev.marrow.mlx5.Mlx5Device;
import dev.marrow.mlx5.Mlx5GpuQueuePair;
import dev.marrow.mlx5.Mlx5MemoryRegion;
import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerInfo;
import dev.marrow.peer.PeerMessages;

import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * The round-trip queue sets of a {@link Fabric}: two QPs connected to each other in this process
 * ({@link Pair}), or one QP connected to a QP of another process or host ({@link Peer}). Each side
 * has a registered source buffer and an inbox (where the other side's writes land).
 */
public final class PairQueues {
    private PairQueues() {
    }

    /**
     * Both QPs in this process, connected to each other: A (epA) posts into B's inbox, B (epB) is
     * the round-trip peer. reconnect brings both QPs RESET -> RTS after a failed run.
     *
     * @param connection which QPs were connected (null on the software NIC's CPU engine)
     * @param qpA        the software NIC's QP A (null on mlx5), for engine placement
     * @param logSq      the SQ size granted, log2 WQEBBs
     */
    public record Pair(MemorySegment epA, MemorySegment epB, MemorySegment inboxA, MemorySegment inboxB,
                       Runnable reconnect, String connection, QueuePair qpA, QueuePair qpB, int logSq) {
    }

    /**
     * One QP here, its peer's in another process or host (--peer).
     *
     * @param ep       this side's endpoint (MARROW_GDA_EP_REMOTE_DST: the destination is the peer's inbox)
     * @param inbox    where the peer's writes land
     * @param peerEnv  the peer's environment header (ENV message)
     * @param peerWire the software NIC: the peer's wire (null on mlx5)
     * @param remote   the peer's QPN, inbox and rkey
     * @param qp       the software NIC: this side's QP (null on mlx5)
     */
    public record Peer(PeerExchange exchange, String connection, MemorySegment ep, MemorySegment inbox,
                       Map<String, Object> peerEnv, ShmWire.Peer peerWire, PeerInfo remote, QueuePair qp,
                       int logSq) {
    }

    static Pair pair(Fabric f, Fabric.QueueShape s, long n) {
        if (f.softNic() != null) {
            return softNicPair(f, s, n);
        }
        Mlx5Device dev = f.mlx5Device();
        HardwareQueuePair a = f.newMlx5QueuePair(s);
        HardwareQueuePair b = f.newMlx5QueuePair(s);
        Mlx5MemoryRegion srcA = f.registerMlx5(n, Access.LOCAL_WRITE);
        Mlx5MemoryRegion srcB = f.registerMlx5(n, Access.LOCAL_WRITE);
        Mlx5MemoryRegion inA = f.registerMlx5(n, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        Mlx5MemoryRegion inB = f.registerMlx5(n, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        PeerInfo infoA = a.localInfo(inA);
        PeerInfo infoB = b.localInfo(inB);
        a.connect(infoB, null);
        b.connect(infoA, null);
        Placement p = f.options().placement();
        MemorySegment epA = Endpoints.endpoint(f.arena(), Nic.MLX5, p, a.qpView(), a.cqView(), buffers(srcA, inA, infoB));
        MemorySegment epB = Endpoints.endpoint(f.arena(), Nic.MLX5, p, b.qpView(), b.cqView(), buffers(srcB, inB, infoA));
        String conn = String.format("%s port %d: %sQP 0x%x <-> QP 0x%x (one host)", dev.name(), dev.port(),
                devxText(a), a.qpn(), b.qpn());
        Runnable reconnect = () -> {
            a.reset();
            b.reset();
            a.connect(infoB, null);
            b.connect(infoA, null);
        };
        return new Pair(epA, epB, inA.buffer(), inB.buffer(), reconnect, conn, null, null, Fabric.grantedLogSq(a));
    }

    private static Pair softNicPair(Fabric f, Fabric.QueueShape s, long n) {
        SoftNic nic = f.softNic();
        CompletionQueue cqA = nic.createCompletionQueue(s.logCq(), s.collapsedCq(), s.collapsedCq());
        CompletionQueue cqB = nic.createCompletionQueue(s.logCq(), s.collapsedCq(), s.collapsedCq());
        QueuePair a = nic.createQueuePair(QueuePair.Config.of(cqA).withLogSqWqebbs(s.logSq())
                .withMaxInlineData(s.maxInline()));
        QueuePair b = nic.createQueuePair(QueuePair.Config.of(cqB).withLogSqWqebbs(s.logSq())
                .withMaxInlineData(s.maxInline()));
        a.connect(b);
        b.connect(a);
        MemoryRegion srcA = nic.registerMemory(f.arena().allocate(n, 4096), Access.LOCAL_WRITE);
        MemoryRegion srcB = nic.registerMemory(f.arena().allocate(n, 4096), Access.LOCAL_WRITE);
        MemoryRegion inA = nic.registerMemory(f.arena().allocate(n, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        MemoryRegion inB = nic.registerMemory(f.arena().allocate(n, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        Placement p = f.options().placement();
        MemorySegment epA = Endpoints.endpoint(f.arena(), Nic.SOFTNIC, p, Endpoints.qpView(f.arena(), a),
                Endpoints.cqView(f.arena(), cqA),
                new Endpoints.Buffers(srcA.address(), n, srcA.lkey(), inA.address(), inB.address(), n, inB.rkey()));
        MemorySegment epB = Endpoints.endpoint(f.arena(), Nic.SOFTNIC, p, Endpoints.qpView(f.arena(), b),
                Endpoints.cqView(f.arena(), cqB),
                new Endpoints.Buffers(srcB.address(), n, srcB.lkey(), inB.address(), inA.address(), n, inA.rkey()));
        Runnable reconnect = () -> {
            a.modify(QpState.RESET, 0);
            b.modify(QpState.RESET, 0);
            a.connect(b);
            b.connect(a);
        };
        return new Pair(epA, epB, inA.memory(), inB.memory(), reconnect, null, a, b, s.logSq());
    }

    static Peer peer(Fabric f, Fabric.QueueShape s, long n, Runnable beforeBarrier) {
        return f.softNic() != null ? softNicPeer(f, s, n, beforeBarrier) : mlx5Peer(f, s, n, beforeBarrier);
    }

    /**
     * The software NIC between two processes of one host (docs/design/two-process.md): one QP, CQ
     * and source buffer here; the inbox lies in this process's shared-memory wire, which the peer
     * process maps. The TCP exchange swaps QPN, rkey and inbox address (INFO), the wire names (WIRE)
     * and the environment headers (ENV); each side attaches the other's wire, connects its QP to the
     * peer's QPN and meets the other at a barrier.
     */
    private static Peer softNicPeer(Fabric f, Fabric.QueueShape s, long n, Runnable beforeBarrier) {
        Mlx5Options o = f.options().mlx5();
        SoftNic nic = f.softNic();
        ShmWire wire = nic.createWire(n);
        CompletionQueue cq = nic.createCompletionQueue(s.logCq(), s.collapsedCq(), s.collapsedCq());
        QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(s.logSq())
                .withMaxInlineData(s.maxInline()));
        MemoryRegion src = nic.registerMemory(f.arena().allocate(n, 4096), Access.LOCAL_WRITE);
        MemoryRegion in = nic.registerMemory(wire.allocate(n), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        wire.export(in);
        wire.export(qp);
        PeerExchange x = f.exchange = PeerExchange.open(o.peer(), o.peerTimeout());
        PeerInfo remote = x.exchange(new PeerInfo(qp.qpn(), 0, in.rkey(), 0, PeerInfo.LINK_ETHERNET, 5, null,
                in.address(), n));
        requireInbox(x, remote);
        String peerWire = x.exchangeText(PeerMessages.TYPE_WIRE, wire.name(), "wire name");
        Map<String, Object> peerEnv = PeerEnvironment.exchange(x);
        ShmWire.Peer pw;
        try {
            pw = nic.attachWire(peerWire, 0);
        } catch (NativeException e) {
            throw new MarrowException("cannot map the peer's software-NIC wire " + peerWire + " (the software "
                    + "NIC joins two processes of ONE host; the peer " + x.peerName() + " runs on "
                    + peerEnv.getOrDefault("host", "?") + "): " + e.getMessage(), e);
        }
        pw.connect(qp, remote.qpn());
        beforeBarrier.run();
        x.barrier(); // both QPs are RTS before anything is written
        MemorySegment ep = Endpoints.endpoint(f.arena(), Nic.SOFTNIC, f.options().placement(),
                Endpoints.qpView(f.arena(), qp), Endpoints.cqView(f.arena(), cq),
                new Endpoints.Buffers(src.address(), n, src.lkey(), in.address(), remote.addr(), remote.len(),
                        remote.rkey()), true);
        String conn = String.format("softnic QP 0x%x <-> peer process QP 0x%x over shared-memory wire %s "
                + "(%s, peer %s)", qp.qpn(), remote.qpn(), peerWire, o.role(), x.peerName());
        return new Peer(x, conn, ep, in.memory(), peerEnv, pw, remote, qp, s.logSq());
    }

    /** One verbs (or DevX) QP connected to another host's: INFO and ENV exchanged, then the barrier. */
    private static Peer mlx5Peer(Fabric f, Fabric.QueueShape s, long n, Runnable beforeBarrier) {
        Mlx5Options o = f.options().mlx5();
        Mlx5Device dev = f.mlx5Device();
        HardwareQueuePair qp = f.newMlx5QueuePair(s);
        Mlx5MemoryRegion src = f.registerMlx5(n, Access.LOCAL_WRITE);
        Mlx5MemoryRegion in = f.registerMlx5(n, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        PeerExchange x = f.exchange = PeerExchange.open(o.peer(), o.peerTimeout());
        PeerInfo remote = x.exchange(qp.localInfo(in));
        requireInbox(x, remote);
        Map<String, Object> peerEnv = PeerEnvironment.exchange(x);
        qp.connect(remote, null);
        beforeBarrier.run();
        x.barrier(); // both QPs are RTS before anything is written
        // The destination is the other host's inbox: in WQEs only, never mapped or read here.
        MemorySegment ep = Endpoints.endpoint(f.arena(), Nic.MLX5, f.options().placement(), qp.qpView(),
                qp.cqView(), buffers(src, in, remote), true);
        String conn = String.format("%s port %d: %sQP 0x%x <-> peer QP 0x%x at %s (%s)", dev.name(),
                dev.port(), devxText(qp), qp.qpn(), remote.qpn(), x.peerName(), o.role());
        return new Peer(x, conn, ep, in.buffer(), peerEnv, null, remote, null, Fabric.grantedLogSq(qp));
    }

    private static void requireInbox(PeerExchange x, PeerInfo remote) {
        if (remote.rkey() == 0 || remote.len() < 8) {
            throw new MarrowException("peer " + x.peerName() + " exposed no writable inbox: " + remote);
        }
    }

    /** "DevX (GPU queues[; fallbacks]) " for a DevX QP, "" for a verbs one. */
    private static String devxText(HardwareQueuePair qp) {
        if (!(qp instanceof Mlx5GpuQueuePair g)) {
            return "";
        }
        return "DevX (queues in GPU memory" + (g.note().isEmpty() ? "" : "; " + g.note()) + ") ";
    }

    private static Endpoints.Buffers buffers(Mlx5MemoryRegion src, Mlx5MemoryRegion inbox, PeerInfo to) {
        return new Endpoints.Buffers(src.buffer().address(), src.buffer().byteSize(), src.lkey(),
                inbox.buffer().address(), to.addr(), to.len(), to.rkey());
    }
}
