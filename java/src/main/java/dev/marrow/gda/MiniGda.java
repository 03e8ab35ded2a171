// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Fabric;
import dev.marrow.fabric.Nic;
import dev.marrow.fabric.PairQueues;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.fabric.PeerRole;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.fabric.PeerEnvironment;
import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.api.TimeoutDump;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QpState;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.ShmWire;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.fabric.internal.EndpointFlag;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.mlx5.HardwareQueuePair;
import dev.marrow.mlx5.Mlx5Device;
import dev.marrow.mlx5.Mlx5GpuQueuePair;
import dev.marrow.mlx5.Mlx5MemoryRegion;
import dev.marrow.mlx5.Mlx5QueuePair;
import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerInfo;
import dev.marrow.peer.PeerMessages;
import dev.marrow.mlx5.QueuePlacement;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setAddress;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * mini-gda: one Java API over the execution targets (cpu, cuda) and the
 * NICs (softnic; mlx5 through the same queue views). A session owns two RC
 * QPs connected to each other (A posts; B is the round-trip peer), their CQs
 * and, per side, a registered source buffer and inbox. The timed loops run
 * in C or CUDA; Java only prepares them and reads the samples.
 *
 * <p>Targets: cpu + softnic, cuda + softnic, cuda + mlx5. On mlx5 both QPs
 * are RC QPs on the same ConnectX, connected to each other over the
 * wire/loopback. Placement host: verbs QPs whose SQ/CQ/dbrec/BlueFlame come
 * from mlx5dv_init_obj, and the CUDA runner maps them (the UAR as IO memory)
 * per run. Placement gpu: DevX QPs whose SQ, CQ and doorbell records live in
 * GPU memory (docs/design/mlx5-queue-formats.md §7); the runner maps only the
 * UAR and the host data buffers, and reads the doorbell records back with
 * cudaMemcpy to resume. cpu + mlx5 is
 * refused: the CPU executor's orderings were not written for a write-combined
 * MMIO doorbell.
 *
 * <p>Two hosts ({@link Mlx5Options#peer()}): each side has ONE QP, a source
 * buffer and an inbox; the TCP exchange swaps QPN, LID/GID, PSN, rkey and
 * inbox address, both QPs go to RTS, and the sides meet at a barrier. The
 * endpoints carry MARROW_GDA_EP_REMOTE_DST (the destination is the other
 * host's inbox: never mapped or read here). The initiator's {@link #run}
 * announces each run to the responder ({@link GdaPeerProtocol}: experiment,
 * ordering, payload, size, iters, warm-up, timeout), runs it on its GPU,
 * and records the responder's report: its check of the final iteration's
 * bytes in its inbox (payload_errors 0 or 1) and, for the round trip, its
 * peer role (a GPU thread polling its inbox and writing the word back,
 * marrow_gda_cuda_serve). The responder calls {@link #serve} and needs no
 * matching flags; issue and put+completion need no GPU there, the round
 * trip does. Both keep QP and inbox until the initiator's closing barrier.
 *
 * <p>A run that fails after posting (error CQE, unexpected CQE, timeout)
 * resets both QPs of a one-host session and connects them again
 * (RESET -> INIT -> RTR -> RTS, SQs back at counter 0), so a later run on
 * the same session works.
 *
 * <pre>{@code
 * try (MiniGda g = MiniGda.open(GdaSetup.defaults(Target.CPU))) {
 *     GdaRun r = g.run(GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE, Payload.INLINE, 8));
 *     long p50 = r.stats().p50();
 * }
 * }</pre>
 */
public final class MiniGda implements AutoCloseable {

    private final GdaSetup setup;
    private final Fabric fabric;
    private final GdaMode mode;
    private int runSeq;                        // two hosts: RUN sequence number
    private boolean peerDone;
    private boolean closed;

    private MiniGda(GdaSetup setup, Fabric fabric, GdaMode mode) {
        this.setup = setup;
        this.fabric = fabric;
        this.mode = mode;
    }

    /**
     * Checks that the target and NIC can run here and builds the queues
     * (the {@link Fabric}'s pair, peer or device-engine queue set).
     *
     * @throws BackendUnavailableException when the GPU or the NIC is missing (the message says why),
     *                                     and for GPU-resident queues on mlx5 without DevX
     * @throws IllegalArgumentException for a combination that is not supported (cpu + mlx5,
     *                                  --peer with placement gpu on the software NIC, a collapsed CQ
     *                                  on mlx5, placement gpu with the cpu target)
     */
    public static MiniGda open(GdaSetup setup) {
        Fabric f = Fabric.open(fabricOptions(setup));
        try {
            // The runner library now, so a missing or stale one fails before any queue exists.
            requireRunner(setup, f);
            Fabric.QueueShape shape = new Fabric.QueueShape(setup.logSq(), setup.logCq(), setup.maxInline(),
                    setup.collapsedCq());
            if (f.options().deviceEngine()) {
                int cqFlags = setup.collapsedCq()
                        ? dev.marrow.api.softnic.CqFlag.COLLAPSED.code() | dev.marrow.api.softnic.CqFlag.OVERRUN_IGNORE.code()
                        : 0;
                DeviceEngineSession d = f.adopt(DeviceEngineSession.open(setup, f.arena(), cqFlags));
                return new MiniGda(setup, f, new GdaMode.DeviceEngine(d, d.endpointA(), d.endpointB()));
            }
            // What was actually opened (name, port, GID index) goes into the records.
            GdaSetup opened = setup.nic() == Nic.MLX5 ? setup.withMlx5(f.openedMlx5()) : setup;
            if (!setup.mlx5().twoHost()) {
                PairQueues.Pair p = f.pair(shape, setup.bufferBytes());
                GdaMode mode = f.softNic() != null ? new GdaMode.SoftNicPair(f.softNic(), p) : new GdaMode.Mlx5Pair(p);
                return new MiniGda(granted(opened, p.logSq()), f, mode);
            }
            // the CUDA context now, not inside a peer's bounded wait (an mlx5 responder without a GPU: none)
            boolean cudaHere = setup.target() == Target.CUDA && f.rttRefusal() == null;
            PairQueues.Peer p = f.peer(shape, setup.bufferBytes(), () -> {
                if (cudaHere) {
                    prepareCuda(setup.cudaDevice());
                }
            });
            GdaMode mode = f.softNic() != null ? new GdaMode.SoftNicPeer(f.softNic(), p)
                    : new GdaMode.Mlx5Peer(p, f.rttRefusal());
            return new MiniGda(granted(opened, p.logSq()), f, mode);
        } catch (RuntimeException e) {
            f.closeAfter(e);
            throw e;
        }
    }

    /** The fabric a setup asks for: its NIC, placement, engine and peer. */
    public static Fabric.Options fabricOptions(GdaSetup s) {
        return new Fabric.Options("mini-gda", s.target(), s.nic(), s.placement(), s.cudaDevice(), s.pollMode(),
                s.engineThreads(), s.engineCpu(), null, s.nicSms(), s.collapsedCq(), s.mlx5());
    }

    /** The runner that executes this setup's runs: the CUDA one for target cuda (and the device engine). */
    private static void requireRunner(GdaSetup setup, Fabric f) {
        boolean cuda = setup.target() == Target.CUDA;
        if (cuda && f.rttRefusal() != null) {
            return; // an mlx5 responder without a GPU serves issue and put+completion without a runner of its own
        }
        if ((cuda ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB) == null) {
            throw new MarrowException(cuda ? "mini-gda CUDA runner library not loaded"
                    : "mini-gda runner library not loaded");
        }
    }

    /** The prefix of every refusal of mlx5 + placement gpu. */
    static final String GPU_QUEUES = Fabric.GPU_QUEUES;

    /** The device engine: distinct SMs its blocks ran on; -1 on any other NIC. */
    public int nicSmsUsed() {
        return mode instanceof GdaMode.DeviceEngine d ? d.engine().distinctSms() : -1;
    }

    /** The device engine's connection text; null elsewhere. */
    private static String deviceEngineText(GdaSetup setup, DeviceEngineSession d) {
        return String.format("software NIC device engine on %d SM(s) (%d distinct, occupancy %d block(s)/SM)",
                setup.nicSms(), d.distinctSms(), d.blocksPerSm());
    }

    private static void prepareCuda(int device) {
        try {
            GdaFfi.Cuda.LIB.check((int) GdaFfi.Cuda.CUDA_PREPARE.invokeExact(device), "marrow_gda_cuda_prepare");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_gda_cuda_prepare failed: " + t, t);
        }
    }

    /** The setup with the SQ size the NIC granted (logSq counts WQEBBs on both NICs). */
    private static GdaSetup granted(GdaSetup s, int logSq) {
        return logSq == s.logSq() ? s : s.withQueues(logSq, s.logCq(), s.collapsedCq());
    }

    /** The fabric that owns this session's queues (a loaded run adds its background QPs to it). */
    Fabric fabric() {
        return fabric;
    }

    public GdaSetup setup() {
        return setup;
    }

    /** The software NIC behind the queues (e.g. to pause its engine in a test). */
    public SoftNic softNic() {
        if (mode instanceof GdaMode.DeviceEngine) {
            throw new IllegalStateException("placement gpu: the software NIC runs as the device engine, "
                    + "without the CPU engine's SoftNic object");
        }
        SoftNic nic = cpuEngineNic();
        if (nic == null) {
            throw new IllegalStateException("no software NIC: this session runs on " + setup.backendName());
        }
        return nic;
    }

    /** The CPU engine's SoftNic (one process, or one side of two); null on other NICs. */
    SoftNic cpuEngineNic() {
        return switch (mode) {
            case GdaMode.SoftNicPair s -> s.nic();
            case GdaMode.SoftNicPeer p -> p.nic();
            default -> null;
        };
    }

    /** One process on the CPU engine: the probe's QPs [A, B] (engine placement, GdaLoaded); null otherwise. */
    java.util.List<dev.marrow.api.softnic.QueuePair> probeQueuePairs() {
        return mode instanceof GdaMode.SoftNicPair s ? java.util.List.of(s.qpA(), s.qpB()) : null;
    }

    /** Two processes or hosts: the peer's environment header (ENV message); empty otherwise. */
    public Map<String, Object> peerEnvironment() {
        return mode instanceof GdaMode.TwoSided t ? t.peerEnv() : Map.of();
    }

    /** mlx5, or two processes: which QPs were connected (and to which peer); null on a one-process software NIC. */
    public String connection() {
        return switch (mode) {
            case GdaMode.SoftNicPair s -> null;
            case GdaMode.DeviceEngine d -> deviceEngineText(setup, d.engine());
            case GdaMode.Mlx5Pair p -> p.connection();
            case GdaMode.TwoSided p -> p.connection();
        };
    }

    /** The 8-byte-aligned buffer where B's writes land (round-trip replies); two hosts: this side's inbox. */
    public MemorySegment inboxA() {
        return mode.inbox();
    }

    /** The initiator's struct marrow_gda_endpoint (tests: to post with a bad key and see the session recover). */
    MemorySegment initiatorEndpoint() {
        return mode.initiator();
    }

    /** The peer's struct marrow_gda_endpoint (QP B answering into A's inbox; null for two hosts), for GdaLoaded. */
    MemorySegment peerEndpoint() {
        if (mode instanceof GdaMode.DeviceEngine d) {
            return d.epB();
        }
        return localPair() instanceof PairQueues.Pair p ? p.epB() : null;
    }

    /** The buffer A writes into: after a run it holds the last iteration's payload. */
    public MemorySegment inboxB() {
        if (mode instanceof GdaMode.DeviceEngine d) {
            return d.inbox(); // throws: GPU memory
        }
        if (!(localPair() instanceof PairQueues.Pair p)) {
            throw new IllegalStateException("A writes into the peer host's inbox");
        }
        return p.inboxB();
    }

    /**
     * Runs one experiment. A run whose payload validation failed is returned
     * with {@link GdaRun#valid()} false; every other failure throws
     * {@link NativeException} with the native message (a timeout has
     * {@link NativeException#isTimeout()}).
     *
     * <p>Two hosts, initiator: the run is announced to the responder first
     * and its report is part of the result ({@link GdaPeerProtocol#initiate});
     * a responder that refuses, fails or goes away ends in an exception
     * (bounded by the peer timeout and the run's timeout), not a hang.
     *
     * @throws UnsupportedOperationException on the responder of a two-host session (it calls {@link #serve})
     */
    public GdaRun run(GdaRunSpec spec) {
        if (closed) {
            throw new IllegalStateException("MiniGda is closed");
        }
        if (!(mode instanceof GdaMode.TwoSided peer)) {
            return runNative(spec, spec.experiment() == Experiment.ROUND_TRIP
                    ? peerEndpoint() : MemorySegment.NULL);
        }
        if (spec.responderDelayNs() != 0) {
            throw new IllegalArgumentException("a responder delay is supported on one host only (the two-host "
                    + "protocol does not carry it)");
        }
        if (setup.mlx5().role() == PeerRole.RESPONDER) {
            throw new UnsupportedOperationException("the responder runs no experiments of its own: it serves "
                    + "the initiator's (serve())");
        }
        if (peerDone) {
            throw new IllegalStateException("the closing barrier with the responder was passed: no more runs");
        }
        return GdaPeerProtocol.initiate(peer.exchange(), ++runSeq, spec, s -> {
            peer.inbox().fill((byte) 0); // the round trip's reply lands here: no stale word from an earlier run
            return GdaPeerProtocol.LocalOutcome.of(runNative(s, MemorySegment.NULL));
        });
    }

    /**
     * gda loaded across two processes of one host (software NIC wire),
     * initiator: the probe and this side's background streams (CPU threads,
     * or GPU blocks with target cuda), the responder answering the probe with its own background
     * streams toward this side (docs/design/two-process.md section 11).
     * The result's background slot errors are those of the responder's
     * streams in this side's inbox plus those the responder found of ours.
     */
    public GdaPeerProtocol.LoadedOutcome runLoaded(GdaLoaded.Spec spec) {
        return runLoaded(spec, GdaLoaded.ProbeEngine.SHARED);
    }

    /**
     * As {@link #runLoaded(GdaLoaded.Spec)}, with this side's engine placement
     * (GdaLoaded.runSide); the outcome carries the responder's as its NIC reported it.
     */
    public GdaPeerProtocol.LoadedOutcome runLoaded(GdaLoaded.Spec spec, GdaLoaded.ProbeEngine probeEngine) {
        if (closed) {
            throw new IllegalStateException("MiniGda is closed");
        }
        if (!(mode instanceof GdaMode.SoftNicPeer sp) || setup.mlx5().role() == PeerRole.RESPONDER) {
            throw new UnsupportedOperationException("runLoaded() is the initiator's side of a two-process software "
                    + "NIC session (one process: GdaLoaded.run)");
        }
        if (peerDone) {
            throw new IllegalStateException("the closing barrier with the responder was passed: no more runs");
        }
        if (GdaLoaded.inboxBytes(spec.streams()) > Math.min(sp.inbox().byteSize(), sp.remote().len())) {
            throw new IllegalArgumentException(spec.streams() + " background streams need inboxes of "
                    + GdaLoaded.inboxBytes(spec.streams()) + " bytes; this side has " + sp.inbox().byteSize()
                    + ", the peer " + sp.remote().len());
        }
        if (spec.iters() > Integer.MAX_VALUE || spec.warmup() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("two processes: iters and warmup must fit the RUN message");
        }
        GdaRunSpec run = new GdaRunSpec(Experiment.ROUND_TRIP, spec.ordering(), Payload.INLINE, 8, (int) spec.iters(),
                (int) spec.warmup(), spec.timeoutNs());
        GdaPeerProtocol.Loaded ext = new GdaPeerProtocol.Loaded(spec.queue(), spec.streams(), spec.window(),
                spec.signalEvery(), spec.paceMsgsPerS());
        return GdaPeerProtocol.initiateLoaded(sp.exchange(), ++runSeq, run, ext, () -> sp.inbox().fill((byte) 0),
                posted -> GdaLoaded.runSide(sp.nic(), false, setup.target() == Target.CUDA, setup.cudaDevice(), sp.ep(),
                        sp.qp(), setup.engineThreads(), probeEngine, q -> sp.peerWire().connect(q, sp.remote().qpn()),
                        sp.remote().addr(), sp.remote().rkey(), spec, posted));
    }

    /**
     * The inbox of this side of a two-process session (where the peer's
     * writes land): a loaded run's caller checks the responder's background
     * in it ({@link GdaLoaded#checkSlots}).
     */
    public MemorySegment peerInbox() {
        if (!(mode instanceof GdaMode.TwoSided t)) {
            throw new IllegalStateException("one process: no peer");
        }
        return t.inbox();
    }

    /**
     * Two hosts, responder: serves the initiator's runs (the round trip's
     * peer role on this GPU; after every run, the check of the final bytes
     * in this side's inbox) until the initiator's closing barrier, then
     * returns the number of runs served. log gets one line per run.
     */
    public int serve(java.util.function.Consumer<String> log) {
        return serve(log, GdaLoaded.ProbeEngine.SHARED);
    }

    /** As {@link #serve(java.util.function.Consumer)}; loaded runs place this side's QPs by probeEngine. */
    public int serve(java.util.function.Consumer<String> log, GdaLoaded.ProbeEngine probeEngine) {
        if (closed) {
            throw new IllegalStateException("MiniGda is closed");
        }
        if (!(mode instanceof GdaMode.TwoSided peer) || setup.mlx5().role() != PeerRole.RESPONDER) {
            throw new UnsupportedOperationException("serve() is the responder's side of a two-host session "
                    + "(--peer :PORT)");
        }
        if (peerDone) {
            throw new IllegalStateException("the closing barrier with the initiator was passed");
        }
        MemorySegment inboxA = peer.inbox();
        int n = GdaPeerProtocol.serve(peer.exchange(), new GdaPeerProtocol.Responder() {
            @Override
            public String refusal(GdaRunSpec spec) {
                if (spec.size() > inboxA.byteSize()) {
                    return "the run writes " + spec.size() + " bytes, this side's inbox has " + inboxA.byteSize()
                            + ": start the responder with --size " + spec.size() + " (or more)";
                }
                return spec.experiment() == Experiment.ROUND_TRIP ? peer.rttRefusal() : null;
            }

            @Override
            public void prepare(GdaRunSpec spec) {
                inboxA.fill((byte) 0);
            }

            @Override
            public GdaPeerProtocol.Served serve(GdaRunSpec spec) {
                return serveNative(spec);
            }

            @Override
            public MemorySegment inbox() {
                return inboxA;
            }

            @Override
            public String loadedRefusal(GdaLoaded.Spec spec) {
                if (!(peer instanceof GdaMode.SoftNicPeer)) {
                    return GdaPeerProtocol.Responder.super.loadedRefusal(spec);
                }
                if (GdaLoaded.inboxBytes(spec.streams()) > inboxA.byteSize()) {
                    return spec.streams() + " background streams need an inbox of "
                            + GdaLoaded.inboxBytes(spec.streams()) + " bytes, this side's has " + inboxA.byteSize();
                }
                return null;
            }

            @Override
            public GdaPeerProtocol.LoadedServed serveLoaded(GdaLoaded.Spec spec, long[] posted) {
                GdaMode.SoftNicPeer sp = (GdaMode.SoftNicPeer) peer;
                try {
                    GdaLoaded.Run r = GdaLoaded.runSide(sp.nic(), true, false, 0, sp.ep(), sp.qp(),
                            setup.engineThreads(), probeEngine, q -> sp.peerWire().connect(q, sp.remote().qpn()),
                            sp.remote().addr(), sp.remote().rkey(), spec, posted);
                    return new GdaPeerProtocol.LoadedServed(new GdaPeerProtocol.Served(0,
                            spec.iters() + spec.warmup(), ""), r.timedNs(), r.placement(), probeEngine);
                } catch (NativeException e) {
                    return new GdaPeerProtocol.LoadedServed(new GdaPeerProtocol.Served(e.status(), 0, e.getMessage()), 0);
                } catch (RuntimeException e) {
                    return new GdaPeerProtocol.LoadedServed(new GdaPeerProtocol.Served(Status.EIO.code(), 0,
                            "the responder's loaded run failed: " + e), 0);
                }
            }
        }, log);
        peerDone = true; // the closing barrier was answered inside
        return n;
    }

    private MemorySegment config(Arena a, GdaRunSpec spec) {
        return GdaConfigs.fill(a, spec.experiment(), spec.ordering(), spec.payload(), spec.size(), spec.iters(),
                spec.warmup(), spec.timeoutNs(), spec.responderDelayNs(), setup.cudaDevice());
    }

    /** The round trip's peer role on this side's GPU (responder); failures are returned, not thrown. */
    private GdaPeerProtocol.Served serveNative(GdaRunSpec spec) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment res = CStruct.allocate(a, GdaLayouts.RESULT);
            boolean cuda = setup.target() == Target.CUDA;
            int rc = cuda ? (int) GdaFfi.Cuda.CUDA_SERVE.invokeExact(config(a, spec), mode.initiator(), res)
                    : (int) GdaFfi.Host.CPU_SERVE.invokeExact(config(a, spec), mode.initiator(), res);
            long posts = getLong(res, GdaLayouts.RESULT, "peer_posts");
            try {
                (cuda ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB).check(rc, cuda ? "marrow_gda_cuda_serve"
                        : "marrow_gda_cpu_serve");
                return new GdaPeerProtocol.Served(0, posts, "");
            } catch (NativeException e) {
                return new GdaPeerProtocol.Served(e.status(), posts, e.getMessage());
            }
        } catch (Throwable t) {
            return new GdaPeerProtocol.Served(Status.EIO.code(), 0, "the responder's peer role failed: " + t);
        }
    }

    /** One run of this process's runner (peer: the local round-trip peer endpoint, or NULL). */
    private GdaRun runNative(GdaRunSpec spec, MemorySegment peer) {
        boolean cuda = setup.target() == Target.CUDA;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cfg = config(a, spec);
            MemorySegment res = CStruct.allocate(a, GdaLayouts.RESULT);
            MemorySegment ns = a.allocate(JAVA_LONG, spec.iters());
            MemorySegment cyc = cuda ? a.allocate(JAVA_LONG, spec.iters()) : MemorySegment.NULL;

            SoftNic nic = cpuEngineNic();
            MemorySegment epA = mode.initiator();
            SoftNicCounters before = nic == null ? null : nic.counters();
            DeviceEngineSession dev = mode instanceof GdaMode.DeviceEngine d ? d.engine() : null;
            Map<String, Long> devBefore = dev == null ? null : dev.counters();
            List<Mlx5GpuQueuePair> gpuQps = gpuQueuePairs();
            List<Mlx5GpuQueuePair.Indexes> resumedFrom = gpuQps.stream().map(Mlx5GpuQueuePair::indexes).toList();
            int rc;
            NativeLib lib;
            if (cuda) {
                lib = GdaFfi.Cuda.LIB;
                rc = (int) GdaFfi.Cuda.CUDA_RUN.invokeExact(cfg, epA, peer, ns, cyc, res);
            } else {
                lib = GdaFfi.Host.LIB;
                rc = (int) GdaFfi.Host.CPU_RUN.invokeExact(cfg, epA, peer, ns, res);
            }
            long payloadErrors = getLong(res, GdaLayouts.RESULT, "payload_errors");
            if (rc != 0 && !(rc == Status.EPROTO.code() && payloadErrors > 0)) { // wrong bytes: reported in the run, not thrown
                try {
                    lib.check(rc, cuda ? "marrow_gda_cuda_run" : "marrow_gda_cpu_run");
                } catch (NativeException e) {
                    NativeException v = withEngineView(e, nic, dev); // before recovery resets the QPs
                    recover(v);
                    throw v;
                }
            }
            Map<String, Long> emu = nic != null ? nic.counters().minus(before).values()
                    : dev != null ? minus(dev.counters(), devBefore) : Map.of();
            GdaRun.Samples samples = new GdaRun.Samples(ns.toArray(JAVA_LONG), cuda ? cyc.toArray(JAVA_LONG) : null,
                    getLong(res, GdaLayouts.RESULT, "timed_ns"), getLong(res, GdaLayouts.RESULT, "timed_cycles"));
            GdaRun.Counters counters = new GdaRun.Counters(getLong(res, GdaLayouts.RESULT, "posts"),
                    getLong(res, GdaLayouts.RESULT, "doorbells"), getLong(res, GdaLayouts.RESULT, "cqes"),
                    getLong(res, GdaLayouts.RESULT, "peer_posts"), payloadErrors);
            GdaRun.WqeShape wqe = new GdaRun.WqeShape(getInt(res, GdaLayouts.RESULT, "ds"),
                    getInt(res, GdaLayouts.RESULT, "wqebbs_per_wqe"));
            checkResume(gpuQps, resumedFrom, counters, wqe.wqebbs());
            return new GdaRun(setup, spec, samples, counters, wqe, emu, dev == null ? null : dev.asRun());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("mini-gda run failed: " + t, t);
        }
    }

    /** The DevX QPs of an mlx5 session with GPU-resident queues ([A, B] or [this side's]); empty otherwise. */
    private List<Mlx5GpuQueuePair> gpuQueuePairs() {
        return fabric.gpuQueuePairs();
    }

    /**
     * GPU-resident queues: the host cannot load them, so the doorbell records are copied back
     * (marrow_mlx5_gpu_qp_indexes, cudaMemcpy) before and after a run. The SQ producer counter must
     * have moved by the WQEBBs posted and the CQ consumer index by the CQEs consumed (A: posts and
     * cqes; B, the round trip's peer: peer_posts each), else the next run would resume from a wrong
     * place.
     */
    static void checkResume(List<Mlx5GpuQueuePair> qps, List<Mlx5GpuQueuePair.Indexes> before, GdaRun.Counters c,
                            int wqebbsPerWqe) {
        for (int i = 0; i < qps.size(); i++) {
            Mlx5GpuQueuePair.Indexes after = qps.get(i).indexes();
            long wqes = i == 0 ? c.posts() : c.peerPosts();
            long cqes = i == 0 ? c.cqes() : c.peerPosts();
            String why = resumeMismatch(before.get(i), after, wqes * wqebbsPerWqe, cqes);
            if (why != null) {
                throw new MarrowException("GPU-resident queues of QP 0x" + Integer.toHexString(qps.get(i).qpn())
                        + ": the doorbell records read back from GPU memory disagree with the run: " + why);
            }
        }
    }

    /** null when the counters moved by wqebbs (16-bit SQ counter) and cqes (24-bit CQ index); else why not. */
    static String resumeMismatch(Mlx5GpuQueuePair.Indexes before, Mlx5GpuQueuePair.Indexes after, long wqebbs,
                                 long cqes) {
        long sq = (after.sqProducer() - before.sqProducer()) & 0xffffL;
        long cq = (after.cqConsumer() - before.cqConsumer()) & 0xffffffL;
        if (sq == (wqebbs & 0xffffL) && cq == (cqes & 0xffffffL)) {
            return null;
        }
        return String.format("SQ producer counter 0x%x -> 0x%x (moved %d, %d WQEBBs posted), CQ consumer index "
                + "0x%x -> 0x%x (moved %d, %d CQEs consumed)", before.sqProducer(), after.sqProducer(), sq, wqebbs,
                before.cqConsumer(), after.cqConsumer(), cq, cqes);
    }

    /**
     * After a run that posted and failed (an error CQE moves both QPs of a
     * remote-access error to ERR; a timeout or an unexpected CQE leaves the
     * rings out of step with the NIC): both QPs RESET -> INIT -> RTR -> RTS,
     * the SQs restart at counter 0, so the next run on this session works.
     * A failed recovery is attached to e. Two hosts: not recovered here (the
     * peer's QP is the other host's; a failed run ends the session).
     */
    private void recover(NativeException e) {
        boolean posted = e.is(Status.EIO) || e.is(Status.EPROTO) || e.isTimeout() || e.is(Status.ECONNRESET);
        PairQueues.Pair pair = localPair();
        if (pair == null || !posted) {
            return;
        }
        try {
            pair.reconnect().run();
        } catch (RuntimeException r) {
            e.addSuppressed(r);
        }
    }

    /**
     * A timeout on the software NIC: the runner's dump names the QP that
     * waited (qpn); the engine's own view of it goes after the dump
     * (docs/design/watchdog.md). Any other failure is returned as it is.
     */
    private static NativeException withEngineView(NativeException e, SoftNic nic, DeviceEngineSession dev) {
        if (e.isTimeout() && dev != null) {
            try {
                return e.withMore(" " + dev.dump(0));
            } catch (RuntimeException dumpFailed) {
                e.addSuppressed(dumpFailed);
                return e;
            }
        }
        if (!e.isTimeout() || nic == null || !(TimeoutDump.parse(e.getMessage()).get("qpn") instanceof String qpn)) {
            return e;
        }
        try {
            String emu = nic.watchdogDump(Long.decode(qpn));
            return emu.isEmpty() ? e : e.withMore(" " + emu);
        } catch (RuntimeException dumpFailed) { // the timeout is the news; a failed dump must not hide it
            e.addSuppressed(dumpFailed);
            return e;
        }
    }

    /** Both sides in this process (software NIC or one mlx5 host); null across hosts. */
    private PairQueues.Pair localPair() {
        return mode instanceof GdaMode.Local l ? l.pair() : null;
    }

    /** Counter deltas (the device engine's counters are running totals). */
    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        after.forEach((k, v) -> m.put(k, v - before.getOrDefault(k, 0L)));
        return m;
    }

    /**
     * Two hosts: the closing barrier. The initiator reaches it when it is
     * done (close calls it); the responder normally meets it inside
     * {@link #serve}; called directly, it waits here (at most the peer
     * timeout) without serving runs. A no-op on one host or once passed.
     */
    public void awaitPeerDone() {
        if (!(mode instanceof GdaMode.TwoSided peer) || peerDone) {
            return;
        }
        peerDone = true;
        peer.exchange().barrier();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // two processes or hosts: the closing barrier first (the peer keeps its side alive until this
        // side is done); the fabric then closes the exchange, then this side's queues
        fabric.closeAfter(mode instanceof GdaMode.TwoSided p ? closePeerExchange(p) : null);
    }

    /**
     * Two processes or hosts: the closing barrier (the peer keeps its side
     * alive until this side is done), then the exchange. Returns the
     * barrier's failure, or null; the exchange is closed either way.
     */
    private RuntimeException closePeerExchange(GdaMode.TwoSided p) {
        try {
            awaitPeerDone();
            return null;
        } catch (RuntimeException e) {
            return e;
        } finally {
            p.exchange().close();
        }
    }
}
