// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.ShmWire;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.fabric.PeerEnvironment;
import dev.marrow.peer.JobToken;
import dev.marrow.peer.PeerAddress;
import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerInfo;
import dev.marrow.peer.PeerMessages;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The mini-proxy across two processes of one host (docs/design/two-process.md
 * section 9): the initiator runs the proxy as in one process, but each
 * worker's software-NIC QP is connected over the shared-memory wire to a QP
 * of the responder process, and the WRITEs land in an inbox the responder
 * exported. The responder only keeps its side alive (engine, wire thread)
 * until the initiator says a session is done, then reports how many bytes of
 * its inbox are non-zero (the initiator's source buffer holds no zero byte).
 *
 * <p>Protocol, per session (one MiniProxy): PROXY_SETUP text both ways
 * ("workers=W bytes=B" from the initiator, "ready" back; "end" closes the
 * connection), INFO per worker, WIRE, ENV, each side connects its QPs, barrier;
 * then PROXY_REPORT ("done" from the initiator, "nonzero_bytes=N" back) and a
 * closing barrier.
 */
public final class ProxyPeer implements AutoCloseable {
    /** Message types of the two-process mini-proxy over the exchange (docs/design/two-process.md section 9). */
    public static final int TYPE_SETUP = 9;
    public static final int TYPE_REPORT = 10;

    private static final String END = "end";
    /** Setup word: the responder answers writes to its flag word (a round-trip session). */
    private static final String ANSWER = "answer=1";
    /** Setup word: the initiator's workers post through verbs (two hosts); absent: the software NIC's wire. */
    private static final String NIC_VERBS = "nic=verbs";
    /** What a round-trip responder's PE 1 may write in its own inbox: its reply sources (64 slots of 64 B). */
    private static final long ANSWER_SOURCES = 64 * 64;
    /** SQ and CQ depth (log2) of a round-trip responder's QPs. */
    private static final int ANSWER_LOG_SQ = 8;

    private final PeerExchange exchange;
    private final PeerAddress address;
    private Map<String, Object> peerEnvironment = Map.of();

    private ProxyPeer(PeerExchange exchange, PeerAddress address) {
        this.exchange = exchange;
        this.address = address;
    }

    /** Connects (HOST:PORT, the initiator) or listens (:PORT, the responder); the job token from the environment. */
    public static ProxyPeer open(PeerAddress addr, Duration timeout) {
        return new ProxyPeer(PeerExchange.open(addr, timeout), addr);
    }

    /** As above with a token in hand (tests). */
    public static ProxyPeer open(PeerAddress addr, Duration timeout, JobToken token) {
        return new ProxyPeer(PeerExchange.open(addr, timeout, token), addr);
    }

    public String peerName() {
        return exchange.peerName();
    }

    /**
     * A failure of this side's run, with the peer's fate added when its
     * process has closed the connection: a dead responder shows up first as
     * the transport's error (an error CQE, TRANSPORT_RETRY_EXC), which alone
     * does not say that the other process is gone. Only a native failure
     * gets the words (it keeps its type and status); any other e is returned
     * as it is (its type decides the exit code; an exchange failure names the peer).
     */
    public RuntimeException explain(RuntimeException e) {
        if (!exchange.peerClosed()) {
            return e;
        }
        String more = "; the peer process at " + peerName() + " has closed the connection (it exited or died: its "
                + "own output says why)";
        return e instanceof NativeException n ? n.withMore(more) : e;
    }

    /** The other process's environment header (after the first session). */
    public Map<String, Object> peerEnvironment() {
        return peerEnvironment;
    }

    /** One initiator session: what the proxy's software-NIC attach needs. */
    public record Remote(long base, long len, int rkey, String connection) {
    }

    /**
     * Initiator: connects qps (fresh, RESET) to the responder's QPs over the
     * wire; the responder's inbox is at least bufferBytes long.
     */
    Remote connect(SoftNic nic, List<QueuePair> qps, long bufferBytes) {
        return connect(nic, qps, bufferBytes, null, null);
    }

    /**
     * As above; with answersTo (this side's proxy buffer, registered, in
     * ownWire's heap) the responder runs a proxy of its own that answers
     * every write to its flag word into this buffer (round trips).
     */
    Remote connect(SoftNic nic, List<QueuePair> qps, long bufferBytes, ShmWire ownWire, MemoryRegion answersTo) {
        ShmWire wire = ownWire != null ? ownWire : nic.createWire(4096);
        MemoryRegion in = answersTo != null ? answersTo
                : nic.registerMemory(wire.allocate(4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        long inLen = answersTo != null ? bufferBytes : 4096;
        wire.export(in);
        for (QueuePair qp : qps) {
            wire.export(qp);
        }
        String answer = exchange.exchangeText(ProxyPeer.TYPE_SETUP,
                "workers=" + qps.size() + " bytes=" + bufferBytes + (answersTo != null ? " " + ANSWER : ""),
                "proxy setup");
        if (!answer.equals("ready")) {
            throw new MarrowException("proxy peer " + peerName() + " refused the session: " + answer);
        }
        List<PeerInfo> remote = new ArrayList<>();
        for (QueuePair qp : qps) {
            PeerInfo r = exchange.exchange(new PeerInfo(qp.qpn(), 0, in.rkey(), 0, PeerInfo.LINK_ETHERNET, 5, null,
                    in.address(), inLen));
            if (r.rkey() == 0 || r.len() < bufferBytes) {
                throw new MarrowException("proxy peer " + peerName() + " exposed no inbox of " + bufferBytes
                        + " bytes: " + r);
            }
            remote.add(r);
        }
        ShmWire.Peer pw = attach(nic, wire);
        for (int i = 0; i < qps.size(); i++) {
            pw.connect(qps.get(i), remote.get(i).qpn());
        }
        exchange.barrier(); // both sides' QPs are RTS before anything is written
        PeerInfo r0 = remote.get(0);
        String conn = String.format("%d softnic QPs (0x%x..) <-> peer process QPs (0x%x..) over the shared-memory "
                + "wire (initiator, peer %s)", qps.size(), qps.get(0).qpn(), r0.qpn(), peerName());
        return new Remote(r0.addr(), r0.len(), r0.rkey(), conn);
    }

    /**
     * Initiator over verbs (two hosts, docs/design/two-process.md section 10):
     * px's workers' QPs (in RESET) are connected to the responder's, and their
     * WRITEs go to the responder's buffer, whose address and rkey come from the
     * exchange. With answers the responder's own proxy answers round trips
     * into this side's buffer (registered whole, remote-writable).
     */
    Remote connectVerbs(MemorySegment px, int workers, long bufferBytes, String device, boolean answers) {
        String answer = exchange.exchangeText(ProxyPeer.TYPE_SETUP, "workers=" + workers + " bytes="
                + bufferBytes + " " + NIC_VERBS + (answers ? " " + ANSWER : ""), "proxy setup");
        if (!answer.equals("ready")) {
            throw new MarrowException("proxy peer " + peerName() + " refused the session: " + answer);
        }
        List<PeerInfo> remote = exchangeVerbs(px, workers, bufferBytes);
        peerEnvironment = PeerEnvironment.exchange(exchange);
        exchange.barrier(); // both sides' QPs are RTS before anything is written
        PeerInfo r0 = remote.getFirst();
        String conn = String.format("%d verbs RC QPs on %s (0x%x..) <-> peer QPs (0x%x..) at %s (initiator)",
                workers, device, MiniProxy.verbsLocal(px, 0).qpn(), r0.qpn(), peerName());
        return new Remote(r0.addr(), r0.len(), r0.rkey(), conn);
    }

    /** Both roles: INFO per worker (this side's QP and buffer), each QP connected to the peer's. */
    private List<PeerInfo> exchangeVerbs(MemorySegment px, int workers, long bufferBytes) {
        List<PeerInfo> remote = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            PeerInfo r = exchange.exchange(MiniProxy.verbsLocal(px, w));
            if (r.rkey() == 0 || r.len() < bufferBytes) {
                throw new MarrowException("proxy peer " + peerName() + " exposed no buffer of " + bufferBytes
                        + " bytes: " + r);
            }
            MiniProxy.verbsConnect(px, w, r);
            remote.add(r);
        }
        return remote;
    }

    private ShmWire.Peer attach(SoftNic nic, ShmWire wire) {
        String peerWire = exchange.exchangeText(PeerMessages.TYPE_WIRE, wire.name(), "wire name");
        peerEnvironment = PeerEnvironment.exchange(exchange);
        try {
            return nic.attachWire(peerWire, 0);
        } catch (NativeException e) {
            throw new MarrowException("cannot map the peer's software-NIC wire " + peerWire + " (the software "
                    + "NIC joins two processes of ONE host; the peer " + peerName() + " runs on "
                    + peerEnvironment.getOrDefault("host", "?") + "): " + e.getMessage(), e);
        }
    }

    /** Initiator: the session's WRITEs are complete; returns the responder's count of non-zero inbox bytes. */
    long finish() {
        String r = exchange.exchangeText(ProxyPeer.TYPE_REPORT, "done", "proxy report");
        exchange.barrier();
        if (!r.startsWith("nonzero_bytes=")) {
            throw new MarrowException("proxy peer " + peerName() + " reported: " + r);
        }
        return Long.parseLong(r.substring("nonzero_bytes=".length()));
    }

    /** Initiator: no more sessions (the responder exits 0). */
    public void end() {
        exchange.exchangeText(ProxyPeer.TYPE_SETUP, END, "proxy setup");
    }

    /**
     * Responder: serves sessions until the initiator ends; each opens its own
     * software NIC (engine threads per opts), an inbox of the initiator's
     * buffer size in the wire, one QP per initiator worker. Returns the
     * number of sessions served.
     */
    public int serve(SoftNic.Options opts, Consumer<String> log) {
        return serve(opts, false, null, log);
    }

    /**
     * yieldIdle: a round-trip session's proxy workers yield when idle (more
     * spinning threads than cores); verbsDevice: this side runs --nic verbs
     * (two hosts; "" = the first device), null: the software NIC.
     */
    public int serve(SoftNic.Options opts, boolean yieldIdle, String verbsDevice, Consumer<String> log) {
        int sessions = 0;
        for (;;) {
            String setup = exchange.exchangeText(ProxyPeer.TYPE_SETUP, "ready", "proxy setup");
            if (setup.equals(END)) {
                return sessions;
            }
            int workers;
            long bytes;
            List<String> words;
            try {
                String[] kv = setup.split(" ");
                if (!kv[0].startsWith("workers=") || !kv[1].startsWith("bytes=")) {
                    throw new IllegalArgumentException(setup);
                }
                workers = Integer.parseInt(kv[0].substring("workers=".length()));
                bytes = Long.parseLong(kv[1].substring("bytes=".length()));
                words = List.of(kv).subList(2, kv.length);
                if (workers < 1 || workers > 16 || bytes < 1
                        || !List.of(ANSWER, NIC_VERBS).containsAll(words)) {
                    throw new IllegalArgumentException(setup);
                }
            } catch (RuntimeException e) {
                throw new MarrowException("malformed proxy setup from " + peerName() + ": " + setup);
            }
            boolean answers = words.contains(ANSWER);
            if (words.contains(NIC_VERBS) != (verbsDevice != null)) {
                throw new MarrowException("the initiator " + peerName() + " runs --nic "
                        + (words.contains(NIC_VERBS) ? "verbs" : "softnic") + ", this side --nic "
                        + (verbsDevice != null ? "verbs" : "softnic") + ": run the same command on both");
            }
            if (verbsDevice != null) {
                serveVerbs(verbsDevice, workers, bytes, answers, yieldIdle, sessions, log);
                sessions++;
                continue;
            }
            try (SoftNic nic = SoftNic.open(opts)) {
                ShmWire wire = nic.createWire(bytes);
                MemorySegment inbox = wire.allocate(bytes);
                MemoryRegion in = nic.registerMemory(inbox, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                wire.export(in);
                List<QueuePair> qps = new ArrayList<>();
                List<CompletionQueue> cqs = new ArrayList<>();
                List<PeerInfo> remote = new ArrayList<>();
                for (int w = 0; w < workers; w++) {
                    // a round-trip session's QPs carry the answering proxy's WRITE chains (64 B inline)
                    CompletionQueue cq = nic.createCompletionQueue(answers ? ANSWER_LOG_SQ : 6, false, false);
                    QueuePair qp = nic.createQueuePair(answers ? QueuePair.Config.of(cq)
                            .withLogSqWqebbs(ANSWER_LOG_SQ).withMaxInlineData(64) : QueuePair.Config.of(cq));
                    wire.export(qp);
                    qps.add(qp);
                    cqs.add(cq);
                    remote.add(exchange.exchange(new PeerInfo(qp.qpn(), 0, in.rkey(), 0, PeerInfo.LINK_ETHERNET, 5,
                            null, in.address(), bytes)));
                }
                ShmWire.Peer pw = attach(nic, wire);
                for (int w = 0; w < workers; w++) {
                    pw.connect(qps.get(w), remote.get(w).qpn());
                }
                MiniProxy answering = null;
                try { // the answering proxy's threads are joined before the session's NIC closes
                    if (answers) {
                        PeerInfo r0 = remote.get(0);
                        if (r0.len() != bytes) {
                            throw new MarrowException("proxy peer " + peerName() + " exported " + r0.len()
                                    + " bytes for its replies, not its buffer's " + bytes);
                        }
                        // PE 1 as in one process: two rings at least, the baseline handoff (one producer: PE 1)
                        ProxyConfig c = ProxyConfig.softnic(workers, Math.max(2, workers), 16, Handoff.BASELINE)
                                .withLogSq(ANSWER_LOG_SQ).withYieldIdle(yieldIdle);
                        answering = MiniProxy.answering(c, nic, inbox, in, qps, cqs,
                                new Remote(r0.addr(), r0.len(), r0.rkey(), null));
                        answering.start();
                        answering.responder(true, 1, 8);
                    }
                    exchange.barrier();
                    log.accept("proxy responder: session " + (sessions + 1) + ", " + workers + " QPs, inbox " + bytes
                            + " bytes" + (answers ? ", answering round trips" : "") + ", peer " + peerName());
                    exchange.receiveMessage(ProxyPeer.TYPE_REPORT, "proxy done");
                } finally {
                    if (answering != null) {
                        answering.close(); // PE 1 and the workers are joined first
                    }
                }
                report(inbox, bytes, answers);
                sessions++;
            }
        }
    }

    /** Answers PROXY_REPORT with the inbox's delivered (non-zero) bytes, then the closing barrier. */
    private void report(MemorySegment inbox, long bytes, boolean answers) {
        // PE 1's reply sources are its own bytes, not delivered ones: not counted
        long skipFrom = answers ? (bytes / 2) & ~63L : bytes;
        long skipTo = answers ? skipFrom + ANSWER_SOURCES : bytes;
        long nonzero = 0;
        for (long i = 0; i < bytes; i++) {
            if ((i < skipFrom || i >= skipTo) && inbox.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0) {
                nonzero++;
            }
        }
        exchange.sendMessage(ProxyPeer.TYPE_REPORT,
                ("nonzero_bytes=" + nonzero).getBytes(java.nio.charset.StandardCharsets.UTF_8), "proxy report");
        exchange.barrier();
    }

    /**
     * Responder over verbs (two hosts, docs/design/two-process.md section 10): a
     * proxy of this side over a zeroed buffer of the initiator's size, one RC QP
     * per initiator worker connected to it; with answers its workers and PE 1
     * run and answer round trips into the initiator's buffer.
     */
    private void serveVerbs(String device, int workers, long bytes, boolean answers, boolean yieldIdle, int sessions,
                            Consumer<String> log) {
        // PE 1 sends one reply at a time: a few slots per ring are enough
        ProxyConfig c = ProxyConfig.softnic(workers, Math.max(2, workers), 16, Handoff.BASELINE)
                .withNic("verbs", device.isEmpty() ? null : device).withLogSlots(4).withMinBufferBytes(bytes)
                .withYieldIdle(yieldIdle);
        try (MiniProxy px = MiniProxy.verbsResponder(c)) {
            if (px.buffer().byteSize() != bytes) {
                throw new MarrowException("proxy responder: a buffer of " + bytes + " bytes was asked, "
                        + px.buffer().byteSize() + " made (the two sides' buffers must match)");
            }
            exchangeVerbs(px.verbsHandle(), workers, bytes);
            peerEnvironment = PeerEnvironment.exchange(exchange);
            try {
                if (answers) {
                    px.start();
                    px.responder(true, 1, 8);
                }
                exchange.barrier();
                log.accept("proxy responder: session " + (sessions + 1) + ", " + workers + " verbs QPs on "
                        + px.nicName() + ", buffer " + bytes + " bytes" + (answers ? ", answering round trips" : "")
                        + ", peer " + peerName());
                exchange.receiveMessage(ProxyPeer.TYPE_REPORT, "proxy done");
            } finally {
                px.stop(); // joins PE 1 (if it ran) and the workers; idempotent
            }
            report(px.buffer(), bytes, answers);
        }
    }

    public PeerAddress address() {
        return address;
    }

    @Override
    public void close() {
        exchange.close();
    }
}
