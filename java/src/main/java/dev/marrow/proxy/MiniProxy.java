// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.ShmWire;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.peer.PeerInfo;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setAddress;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A mini-proxy: R descriptor rings, T worker threads each owning one loopback
 * QP (software NIC or a real RDMA device), and one registered buffer whose
 * halves stand for PE 0 and PE 1. The timed loops run in C; this class only
 * sets up, starts, reads results and tears down — in the order the native
 * side needs: workers joined, then proxy state, then QPs, CQs, MR, NIC, memory.
 */
public final class MiniProxy implements AutoCloseable {
    private final ProxyConfig config;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer;
    private final SoftNic nic;               // null for verbs
    private final MemorySegment handle;
    private final String verbsDevice;
    private int sendWr;                      // verbs: max_send_wr asked (2^logSq / 2)
    private int sendWrGranted;               // verbs: the smallest max_send_wr ibv_create_qp granted
    private boolean running;
    private boolean closed;

    private MiniProxy(ProxyConfig config, MemorySegment buffer, SoftNic nic, MemorySegment handle, String verbsDevice) {
        this.config = config;
        this.buffer = buffer;
        this.nic = nic;
        this.handle = handle;
        this.verbsDevice = verbsDevice;
    }

    /** Bytes of buffer the experiments need for these parameters (marrow_proxy_buffer_bytes). */
    public static long bufferBytes(int rings, int logSlots, int msgSize) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG);
            int rc = (int) ProxyFfi.BUFFER_BYTES.invokeExact(rings, logSlots, msgSize, out);
            if (rc != 0) { // the library's limits (proxy_sys.c): a refusal is a usage error
                throw ProxyFfi.LIB.exception(rc, "marrow_proxy_buffer_bytes").usageIfInvalid();
            }
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** Builds the NIC side and the proxy; the workers are not started yet. */
    public static MiniProxy open(ProxyConfig c) {
        return open(c, null);
    }

    /**
     * With peer: the software NIC's workers WRITE into the inbox of another
     * process over the shared-memory wire (docs/design/two-process.md
     * section 9); the source buffer is filled with non-zero bytes so the
     * responder can tell delivered bytes from untouched ones.
     */
    public static MiniProxy open(ProxyConfig c, ProxyPeer peer) {
        return open(c, peer, false);
    }

    /**
     * As {@link #open(ProxyConfig, ProxyPeer)}; with peerAnswers the buffer
     * lies in this side's wire and is exported, and the responder runs a
     * proxy of its own whose PE 1 answers every write to its flag word into
     * this buffer's flag word (the round trip of proxy loaded across two
     * processes, docs/design/two-process.md section 9).
     */
    public static MiniProxy open(ProxyConfig c, ProxyPeer peer, boolean peerAnswers) {
        if (peerAnswers && peer == null) {
            throw new IllegalArgumentException("peerAnswers needs a peer");
        }
        return open(c, peer, peerAnswers, false);
    }

    /**
     * The responder's end of a two-host verbs session (docs/design/two-process.md
     * section 10): a proxy over a zeroed buffer of at least c.minBufferBytes()
     * whose verbs QPs wait in RESET for {@link #verbsConnect}; ProxyPeer runs
     * the exchange.
     */
    static MiniProxy verbsResponder(ProxyConfig c) {
        return open(c, null, false, true);
    }

    /** This side's description of worker w's verbs QP and buffer, for the peer exchange. */
    static PeerInfo verbsLocal(MemorySegment px, int w) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, ProxyFfi.PEER_INFO);
            ProxyFfi.check((int) ProxyFfi.VERBS_LOCAL.invokeExact(px, w, s), "marrow_proxy_verbs_local");
            return PeerInfo.fromNative(s, ProxyFfi.PEER_INFO);
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** Connects worker w's verbs QP to the peer's; its WRITEs then go to the peer's buffer. */
    static void verbsConnect(MemorySegment px, int w, PeerInfo peer) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, ProxyFfi.PEER_INFO);
            peer.toNative(s, ProxyFfi.PEER_INFO);
            ProxyFfi.check((int) ProxyFfi.VERBS_CONNECT.invokeExact(px, w, s), "marrow_proxy_verbs_connect");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /**
     * Whether the verbs backend can open device (null: the first) with an active port, before any
     * rendezvous: a BackendUnavailableException (exit 77) with the reason if not; the device name if so.
     */
    public static String probeVerbs(String device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment name = a.allocate(64);
            MemorySegment want = device == null ? MemorySegment.NULL : a.allocateFrom(device);
            int rc = (int) ProxyFfi.VERBS_PROBE.invokeExact(want, name, 64);
            if (rc != 0) {
                String why = ProxyFfi.LIB.lastError();
                throw ProxyFfi.LIB.exception(rc, "marrow_proxy_verbs_probe").unavailableIfNoDevice(why);
            }
            return name.getString(0);
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    MemorySegment verbsHandle() {
        return handle;
    }

    private static MiniProxy open(ProxyConfig c, ProxyPeer peer, boolean peerAnswers, boolean verbsResponder) {
        Arena tmp = Arena.ofConfined();
        SoftNic nic = null;
        MemorySegment px = MemorySegment.NULL;
        MiniProxy made = null;
        Arena shared = null;
        try (tmp) {
            long bytes = Math.max(bufferBytes(c.rings(), c.logSlots(), 64), c.minBufferBytes());
            bytes = (bytes + 4095) & ~4095L;
            shared = Arena.ofShared();
            MemorySegment buf = null;
            int lkey = 0;
            int rkey = 0;
            List<QueuePair> qps = new ArrayList<>();
            List<CompletionQueue> cqs = new ArrayList<>();
            ShmWire ownWire = null;
            MemoryRegion ownMr = null;
            if (c.nic().equals("softnic")) {
                Backend.SOFTNIC.ensureAvailability();
                ProxyConfig.Engine e = c.engine();
                nic = SoftNic.open(new SoftNic.Options(e.hot() ? SoftNic.PollMode.HOT : SoftNic.PollMode.IDLE,
                        e.threads(), e.cpu(), true));
                if (peerAnswers) { // the peer's replies can only reach memory in this side's segment
                    ownWire = nic.createWire(bytes);
                    buf = ownWire.allocate(bytes);
                }
            }
            if (buf == null) {
                buf = shared.allocate(bytes, 4096);
            }
            if (nic != null) {
                MemoryRegion mr = nic.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                ownMr = mr;
                lkey = mr.lkey();
                rkey = mr.rkey();
                try { // the software NIC checks --log-sq: its refusal is a usage error
                    for (int w = 0; w < c.workers(); w++) {
                        CompletionQueue cq = nic.createCompletionQueue(c.logSq(), false, false);
                        QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(c.logSq())
                                .withMaxInlineData(64));
                        if (peer == null) {
                            qp.connect(qp);
                        }
                        cqs.add(cq);
                        qps.add(qp);
                    }
                } catch (NativeException refused) {
                    throw refused.usageIfInvalid();
                }
            }
            ProxyPeer.Remote remote = null;
            if (peer != null) {
                for (long i = 0; i < bytes; i++) {
                    buf.set(JAVA_BYTE, i, (byte) (1 + i % 251));
                }
                if (nic != null) {
                    remote = peer.connect(nic, qps, bytes, ownWire, ownWire != null ? ownMr : null);
                }
            }
            px = create(tmp, c, buf, bytes, lkey, rkey);
            String device = null;
            int sendWr = 0;
            int sendWrGranted = 0;
            if (nic != null) {
                attachSoftnic(tmp, px, qps, cqs, remote);
            } else {
                MemorySegment name = tmp.allocate(64);
                MemorySegment want = c.verbsDevice() == null ? MemorySegment.NULL : tmp.allocateFrom(c.verbsDevice());
                MemorySegment asked = tmp.allocate(JAVA_INT);
                MemorySegment granted = tmp.allocate(JAVA_INT);
                boolean twoHosts = peer != null || verbsResponder; // QPs wait for the peer's instead of looping back
                int rc = twoHosts
                        ? (int) ProxyFfi.ATTACH_VERBS_PEER.invokeExact(px, want, c.logSq(), name, 64, asked, granted)
                        : (int) ProxyFfi.ATTACH_VERBS_SQ.invokeExact(px, want, c.logSq(), name, 64, asked, granted);
                if (rc != 0) {
                    String why = ProxyFfi.LIB.lastError();
                    throw ProxyFfi.LIB.exception(rc, twoHosts ? "marrow_proxy_attach_verbs_peer"
                            : "marrow_proxy_attach_verbs_sq").unavailableIfNoDevice(why);
                }
                device = name.getString(0);
                sendWr = asked.get(JAVA_INT, 0);
                sendWrGranted = granted.get(JAVA_INT, 0);
                if (c.cpus().length == 0) {
                    pinToNicNode(px, device, c.workers());
                }
                if (peer != null) {
                    remote = peer.connectVerbs(px, c.workers(), bytes, device, peerAnswers);
                }
            }
            made = new MiniProxy(c, buf, nic, px, device);
            made.sendWr = sendWr;
            made.sendWrGranted = sendWrGranted;
            made.sharedArena = shared;
            made.peer = peer;
            made.peerConnection = remote == null ? null : remote.connection();
            return made;
        } catch (Throwable t) {
            if (made == null) {
                if (!px.equals(MemorySegment.NULL)) {
                    try {
                        int ignored = (int) ProxyFfi.DESTROY.invokeExact(px);
                    } catch (Throwable ignored) {
                        // already failing
                    }
                }
                if (nic != null) {
                    nic.close();
                }
                if (shared != null) {
                    shared.close();   // the buffer goes after everything that used it
                }
            }
            throw ProxyFfi.rethrow(t);
        }
    }

    private static MemorySegment create(Arena tmp, ProxyConfig c, MemorySegment buf, long bytes, int lkey, int rkey)
            throws Throwable {
        MemorySegment cfg = ProxyFfi.config(tmp, c.geometry(), c.handoff(), c.workerOptions());
        MemorySegment mem = CStruct.allocate(tmp, ProxyFfi.MEMORY);
        setLong(mem, ProxyFfi.MEMORY, "base", buf.address());
        setLong(mem, ProxyFfi.MEMORY, "len", bytes);
        setInt(mem, ProxyFfi.MEMORY, "lkey", lkey);
        setInt(mem, ProxyFfi.MEMORY, "rkey", rkey);
        MemorySegment out = tmp.allocate(ADDRESS);
        ProxyFfi.check((int) ProxyFfi.CREATE.invokeExact(cfg, mem, out), "marrow_proxy_create");
        return out.get(ADDRESS, 0);
    }

    /** Worker w posts on qps[w], completes on cqs[w]; with remote its WRITEs go to the peer's memory. */
    private static void attachSoftnic(Arena tmp, MemorySegment px, List<QueuePair> qps, List<CompletionQueue> cqs,
                                      ProxyPeer.Remote remote) throws Throwable {
        for (int w = 0; w < qps.size(); w++) {
            MemorySegment q = CStruct.allocate(tmp, ProxyFfi.SOFTNIC_QP);
            QueuePair qp = qps.get(w);
            CompletionQueue cq = cqs.get(w);
            setInt(q, ProxyFfi.SOFTNIC_QP, "qpn", qp.qpn());
            setInt(q, ProxyFfi.SOFTNIC_QP, "sq_wqe_cnt", qp.sqWqebbs());
            setInt(q, ProxyFfi.SOFTNIC_QP, "max_inline", qp.maxInlineData());
            setInt(q, ProxyFfi.SOFTNIC_QP, "cqe_cnt", cq.entries());
            setAddress(q, ProxyFfi.SOFTNIC_QP, "sq_buf", qp.sendQueue());
            setAddress(q, ProxyFfi.SOFTNIC_QP, "sq_dbrec", qp.dbrec());
            setAddress(q, ProxyFfi.SOFTNIC_QP, "uar", qp.uar());
            setAddress(q, ProxyFfi.SOFTNIC_QP, "cq_buf", cq.buffer());
            setAddress(q, ProxyFfi.SOFTNIC_QP, "cq_dbrec", cq.dbrec());
            if (remote != null) {
                setLong(q, ProxyFfi.SOFTNIC_QP, "remote_base", remote.base());
                setLong(q, ProxyFfi.SOFTNIC_QP, "remote_len", remote.len());
                setInt(q, ProxyFfi.SOFTNIC_QP, "remote_rkey", remote.rkey());
            }
            ProxyFfi.check((int) ProxyFfi.ATTACH_SOFTNIC.invokeExact(px, w, q), "marrow_proxy_attach_softnic");
        }
    }

    /**
     * The responder's side of a round-trip session: a proxy over the
     * responder's inbox (buffer) and its session QPs (already connected over
     * the wire to the initiator's), whose WRITEs go to the initiator's
     * exported buffer. It does not own the NIC: the session closes that.
     */
    static MiniProxy answering(ProxyConfig c, SoftNic nic, MemorySegment buffer, MemoryRegion mr,
                               List<QueuePair> qps, List<CompletionQueue> cqs, ProxyPeer.Remote initiator) {
        MemorySegment px = MemorySegment.NULL;
        try (Arena tmp = Arena.ofConfined()) {
            px = create(tmp, c, buffer, buffer.byteSize(), mr.lkey(), mr.rkey());
            attachSoftnic(tmp, px, qps, cqs, initiator);
            MiniProxy made = new MiniProxy(c, buffer, nic, px, null);
            made.ownsNic = false;
            return made;
        } catch (Throwable t) {
            if (!px.equals(MemorySegment.NULL)) {
                try {
                    int ignored = (int) ProxyFfi.DESTROY.invokeExact(px);
                } catch (Throwable ignored) {
                    // already failing
                }
            }
            throw ProxyFfi.rethrow(t);
        }
    }

    private boolean ownsNic = true;
    private Arena sharedArena;
    private ProxyPeer peer;
    private String peerConnection;

    /** The two-process connection, or null in one process. */
    public String peerConnection() {
        return peerConnection;
    }

    /**
     * Two processes: stops the workers (every WRITE completed or failed),
     * then asks the responder how many bytes of its inbox are non-zero.
     */
    public long finishPeer() {
        if (peer == null) {
            throw new IllegalStateException("no peer");
        }
        stop();
        return peer.finish();
    }

    /** Default placement for verbs: the cores of the NIC's NUMA node, when sysfs says which. */
    private static void pinToNicNode(MemorySegment px, String device, int workers) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cpus = a.allocate(JAVA_INT, 1024);
            MemorySegment n = a.allocate(JAVA_INT);
            int rc = (int) ProxyFfi.NIC_CPUS.invokeExact(a.allocateFrom(device), cpus, 1024, n);
            if (rc == 0 && n.get(JAVA_INT, 0) > 0) {
                int count = Math.min(workers, n.get(JAVA_INT, 0));
                ProxyFfi.check((int) ProxyFfi.SET_CPUS.invokeExact(px, cpus, count), "marrow_proxy_set_cpus");
            }
        }
    }

    public ProxyConfig config() {
        return config;
    }

    /** Backend label for result records. */
    public String nicName() {
        return nic != null ? "softnic" : "verbs:" + verbsDevice;
    }

    public boolean hardware() {
        return nic == null;
    }

    /**
     * The SQ shape for result records: log_sq and sq_wqebbs on both backends
     * (--log-sq counts WQEBBs); with verbs also the max_send_wr asked
     * (2^logSq / 2: a 64 B inline WRITE takes 2 WQEBBs) and the smallest one
     * ibv_create_qp granted (it may round up).
     */
    public java.util.Map<String, Object> sqShape() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("log_sq", config.logSq());
        m.put("sq_wqebbs", 1 << config.logSq());
        if (nic == null) {
            m.put("max_send_wr", sendWr);
            m.put("max_send_wr_granted", sendWrGranted);
        }
        return m;
    }

    /** The software NIC behind the workers (its wire model: docs/design/wire-model.md); empty on verbs. */
    public java.util.Optional<SoftNic> softNic() {
        return java.util.Optional.ofNullable(nic);
    }

    public MemorySegment buffer() {
        return buffer;
    }

    MemorySegment handle() {
        return handle;
    }

    public void start() {
        ensureOpen();
        try {
            ProxyFfi.check((int) ProxyFfi.START.invokeExact(handle), "marrow_proxy_start");
            running = true;
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** Stops and joins the workers (bounded). Idempotent. */
    public void stop() {
        if (closed) {
            return;
        }
        try {
            ProxyFfi.check((int) ProxyFfi.STOP.invokeExact(handle), "marrow_proxy_stop");
            running = false;
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** Lets the running workers spin this long before measuring. */
    public void precondition(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            ProxyFfi.check((int) ProxyFfi.PRECONDITION.invokeExact(handle, d.toNanos()), "marrow_proxy_precondition");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** One CPU-produced WRITE; returns its ring position. */
    public long enqueue(int ring, int localOff, int remoteOff, int size, long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(JAVA_LONG);
            ProxyFfi.check((int) ProxyFfi.ENQUEUE.invokeExact(handle, ring, localOff, remoteOff, size, 0, timeoutNs, t),
                    "marrow_proxy_enqueue");
            return t.get(JAVA_LONG, 0);
        } catch (Throwable th) {
            throw ProxyFfi.rethrow(th);
        }
    }

    /** Waits until ring's completion counter reaches count (bounded). */
    public void await(int ring, long count, long timeoutNs) {
        try {
            ProxyFfi.check((int) ProxyFfi.WAIT.invokeExact(handle, ring, count, timeoutNs), "marrow_proxy_wait");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** {consumed, completed} of a ring. */
    public long[] ringCounters(int ring) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(JAVA_LONG);
            MemorySegment c = a.allocate(JAVA_LONG);
            ProxyFfi.check((int) ProxyFfi.RING_COUNTERS.invokeExact(handle, ring, t, c), "marrow_proxy_ring_counters");
            return new long[] {t.get(JAVA_LONG, 0), c.get(JAVA_LONG, 0)};
        } catch (Throwable th) {
            throw ProxyFfi.rethrow(th);
        }
    }

    /** Single-operation latency with a CPU producer (see marrow_proxy_cpu_latency). */
    public LatencySamples cpuLatency(int iters, int warmup, int msgSize, long timeoutNs, boolean putc, boolean rtt) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = latencyParams(a, iters, warmup, msgSize, timeoutNs);
            MemorySegment is = putc ? a.allocate(JAVA_LONG, iters) : MemorySegment.NULL;
            MemorySegment pc = putc ? a.allocate(JAVA_LONG, iters) : MemorySegment.NULL;
            MemorySegment rt = rtt ? a.allocate(JAVA_LONG, iters) : MemorySegment.NULL;
            ProxyFfi.check((int) ProxyFfi.CPU_LATENCY.invokeExact(handle, p, is, pc, rt), "marrow_proxy_cpu_latency");
            return new LatencySamples(arr(is), arr(pc), arr(rt));
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /**
     * The library's check of a latency run's parameters (marrow_proxy_latency_check, the one place
     * these limits live): a refusal is an IllegalArgumentException with its message.
     */
    public static void checkLatency(int iters, int warmup, int msgSize, long timeoutNs, boolean gpuProducer) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) ProxyFfi.LATENCY_CHECK.invokeExact(latencyParams(a, iters, warmup, msgSize, timeoutNs),
                    gpuProducer ? 1 : 0);
            if (rc != 0) {
                throw ProxyFfi.LIB.exception(rc, "marrow_proxy_latency_check").usageIfInvalid();
            }
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /**
     * The library's check of a rate run's totals (marrow_proxy_rate_check with one producer, before
     * the producers are counted): a refusal is an IllegalArgumentException with its message.
     */
    public static void checkRate(long messages, long warmup, int msgSize, long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) ProxyFfi.RATE_CHECK.invokeExact(rateParams(a, 1, messages, warmup, msgSize, timeoutNs));
            if (rc != 0) {
                throw ProxyFfi.LIB.exception(rc, "marrow_proxy_rate_check").usageIfInvalid();
            }
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    static MemorySegment latencyParams(Arena a, int iters, int warmup, int msgSize, long timeoutNs) {
        MemorySegment p = CStruct.allocate(a, ProxyFfi.LATENCY_PARAMS);
        setInt(p, ProxyFfi.LATENCY_PARAMS, "iters", iters);
        setInt(p, ProxyFfi.LATENCY_PARAMS, "warmup", warmup);
        setInt(p, ProxyFfi.LATENCY_PARAMS, "msg_size", msgSize);
        setLong(p, ProxyFfi.LATENCY_PARAMS, "timeout_ns", timeoutNs);
        return p;
    }

    static long[] arr(MemorySegment s) {
        return s.equals(MemorySegment.NULL) ? new long[0] : s.toArray(JAVA_LONG);
    }

    /** Message rate with CPU producers (see marrow_proxy_cpu_rate); worker stats cover the timed region. */
    public RateResult cpuRate(int producers, long messagesPerProducer, long warmupPerProducer, int msgSize, long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = rateParams(a, producers, messagesPerProducer, warmupPerProducer, msgSize, timeoutNs);
            MemorySegment r = CStruct.allocate(a, ProxyFfi.RATE_RESULT);
            ProxyFfi.check((int) ProxyFfi.CPU_RATE.invokeExact(handle, p, r), "marrow_proxy_cpu_rate");
            return rateResult(r, window());
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    static MemorySegment rateParams(Arena a, int producers, long messages, long warmup, int msgSize, long timeoutNs) {
        MemorySegment p = CStruct.allocate(a, ProxyFfi.RATE_PARAMS);
        setInt(p, ProxyFfi.RATE_PARAMS, "producers", producers);
        setInt(p, ProxyFfi.RATE_PARAMS, "msg_size", msgSize);
        setLong(p, ProxyFfi.RATE_PARAMS, "messages", messages);
        setLong(p, ProxyFfi.RATE_PARAMS, "warmup", warmup);
        setLong(p, ProxyFfi.RATE_PARAMS, "timeout_ns", timeoutNs);
        return p;
    }

    static RateResult rateResult(MemorySegment r, List<WorkerStats> workers) {
        return new RateResult(getLong(r, ProxyFfi.RATE_RESULT, "messages"),
                getLong(r, ProxyFfi.RATE_RESULT, "elapsed_ns"),
                getLong(r, ProxyFfi.RATE_RESULT, "ring_full_waits"),
                getLong(r, ProxyFfi.RATE_RESULT, "cache_refreshes"),
                getLong(r, ProxyFfi.RATE_RESULT, "verify_errors"), workers);
    }

    /** Marks the start (false) or end (true) of a measured window: counters and core frequencies. */
    public void mark(boolean end) {
        try {
            ProxyFfi.check((int) ProxyFfi.MARK.invokeExact(handle, end ? 1 : 0), "marrow_proxy_mark");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** Every worker's counters between the last two marks. */
    public List<WorkerStats> window() {
        return stats(ProxyFfi.WORKER_WINDOW, "marrow_proxy_worker_window");
    }

    /** Every worker's counters since start. */
    public List<WorkerStats> workers() {
        return stats(ProxyFfi.WORKER_STATS_H, "marrow_proxy_worker_stats");
    }

    private List<WorkerStats> stats(java.lang.invoke.MethodHandle mh, String fn) {
        List<WorkerStats> l = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(ProxyFfi.WORKER_STATS);
            for (int w = 0; w < config.workers(); w++) {
                s.fill((byte) 0);
                setInt(s, ProxyFfi.WORKER_STATS, "size", (int) ProxyFfi.WORKER_STATS.byteSize());
                ProxyFfi.check((int) mh.invokeExact(handle, w, s), fn);
                java.lang.foreign.StructLayout L = ProxyFfi.WORKER_STATS;
                l.add(new WorkerStats(w, getInt(s, L, "cpu"), getInt(s, L, "state"),
                        getLong(s, L, "requests"), getLong(s, L, "chains"),
                        getLong(s, L, "polls"), getLong(s, L, "empty_polls"),
                        getLong(s, L, "cqes"), getLong(s, L, "sq_full"),
                        getLong(s, L, "freq_before_khz"), getLong(s, L, "freq_after_khz"),
                        getInt(s, L, "error")));
            }
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
        return l;
    }

    /** PE 1's responder for GPU round trips: answers on ring. */
    public void responder(boolean on, int ring, int msgSize) {
        try {
            if (on) {
                ProxyFfi.check((int) ProxyFfi.RESPONDER_START.invokeExact(handle, ring, msgSize), "marrow_proxy_responder_start");
            } else {
                ProxyFfi.check((int) ProxyFfi.RESPONDER_STOP.invokeExact(handle), "marrow_proxy_responder_stop");
            }
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /**
     * Maps the rings and the buffer into GPU gpu for GPU producers with the
     * given handoff. Must be called before {@link #start()} (it redirects the
     * tuned completion counters).
     */
    public GpuProducers openGpu(int gpu, Handoff handoff, boolean gdrcopy) {
        ensureOpen();
        if (running) {
            throw new IllegalStateException("openGpu must come before start()");
        }
        Backend.CUDA.ensureAvailability();
        return GpuProducers.open(this, gpu, handoff, gdrcopy);
    }

    void setCplTarget(int ring, MemorySegment target) {
        try {
            ProxyFfi.check((int) ProxyFfi.SET_CPL_TARGET.invokeExact(handle, ring, target), "marrow_proxy_set_cpl_target");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    MemorySegment[] arena() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment base = a.allocate(ADDRESS);
            MemorySegment bytes = a.allocate(JAVA_LONG);
            ProxyFfi.check((int) ProxyFfi.ARENA.invokeExact(handle, base, bytes), "marrow_proxy_arena");
            return new MemorySegment[] {base.get(ADDRESS, 0), MemorySegment.ofAddress(bytes.get(JAVA_LONG, 0))};
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("MiniProxy is closed");
        }
    }

    /** Joins the workers, frees the proxy, then the NIC objects, then the buffer. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ProxyFfi.check((int) ProxyFfi.DESTROY.invokeExact(handle), "marrow_proxy_destroy");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        } finally {
            if (nic != null && ownsNic) {
                nic.close();
            }
            if (sharedArena != null) {
                sharedArena.close();
            }
            arena.close();
        }
    }
}
