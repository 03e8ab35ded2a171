// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.RdmaCore;
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
import dev.marrow.gda.internal.EndpointFlag;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.mlx5.HardwareQueuePair;
import dev.marrow.mlx5.Mlx5Device;
import dev.marrow.mlx5.Mlx5GpuQueuePair;
import dev.marrow.mlx5.Mlx5MemoryRegion;
import dev.marrow.mlx5.Mlx5QueuePair;
import dev.marrow.mlx5.PeerExchange;
import dev.marrow.mlx5.PeerInfo;
import dev.marrow.mlx5.PeerMessages;
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
 * MMIO doorbell; on the mlx5 model (MARROW_RDMA_CORE=model, one host) it runs.
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
    private final Arena arena;
    private final GdaMode mode;
    private int runSeq;                        // two hosts: RUN sequence number
    private boolean peerDone;
    private boolean closed;

    private MiniGda(GdaSetup setup, Arena arena, GdaMode mode) {
        this.setup = setup;
        this.arena = arena;
        this.mode = mode;
    }

    /**
     * Checks that the target and NIC can run here and builds the queues.
     *
     * @throws BackendUnavailableException when the GPU or the NIC is missing (the message says why),
     *                                     and for GPU-resident queues on mlx5 without DevX
     * @throws IllegalArgumentException for a combination that is not supported (cpu + mlx5,
     *                                  --peer with placement gpu on the software NIC, a collapsed CQ
     *                                  on mlx5, placement gpu with the cpu target)
     */
    public static MiniGda open(GdaSetup setup) {
        if (setup.placement() == Placement.GPU) {
            return openDeviceEngine(setup);
        }
        if (setup.nic() == Nic.MLX5) {
            return openMlx5(setup);
        }
        if (setup.mlx5().twoHost()) {
            return openSoftNicPeer(setup);
        }
        if (setup.target() == Target.CUDA) {
            Backend.CUDA.ensureAvailability();
        }
        Backend.SOFTNIC.ensureAvailability();
        // Load the runner library now so a missing or stale one fails before any queue exists.
        NativeLib lib = setup.target() == Target.CUDA ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB;
        if (lib == null) {
            throw new MarrowException("mini-gda runner library not loaded");
        }
        SoftNic nic = SoftNic.open(SoftNic.Options.defaults().withPollMode(setup.pollMode())
                .withEngineThreads(setup.engineThreads()).withEngineCpu(setup.engineCpu()).withQuiet(true));
        Arena arena = Arena.ofShared();
        try {
            CompletionQueue cqA = nic.createCompletionQueue(setup.logCq(), setup.collapsedCq(), setup.collapsedCq());
            CompletionQueue cqB = nic.createCompletionQueue(setup.logCq(), setup.collapsedCq(), setup.collapsedCq());
            QueuePair a = nic.createQueuePair(QueuePair.Config.of(cqA).withLogSqWqebbs(setup.logSq())
                    .withMaxInlineData(setup.maxInline()));
            QueuePair b = nic.createQueuePair(QueuePair.Config.of(cqB).withLogSqWqebbs(setup.logSq())
                    .withMaxInlineData(setup.maxInline()));
            a.connect(b);
            b.connect(a);
            long n = setup.bufferBytes();
            MemoryRegion srcA = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE);
            MemoryRegion srcB = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE);
            MemoryRegion inA = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemoryRegion inB = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemorySegment epA = endpoint(arena, Nic.SOFTNIC, setup.placement(), qpView(arena, a), cqView(arena, cqA),
                    new Buffers(srcA.address(), n, srcA.lkey(), inA.address(), inB.address(), n, inB.rkey()));
            MemorySegment epB = endpoint(arena, Nic.SOFTNIC, setup.placement(), qpView(arena, b), cqView(arena, cqB),
                    new Buffers(srcB.address(), n, srcB.lkey(), inB.address(), inA.address(), n, inA.rkey()));
            Runnable reconnect = () -> {
                a.modify(QpState.RESET, 0);
                b.modify(QpState.RESET, 0);
                a.connect(b);
                b.connect(a);
            };
            return new MiniGda(setup, arena, new GdaMode.SoftNicPair(nic,
                    new GdaMode.LocalPair(epA, epB, inA.memory(), inB.memory(), reconnect), a, b));
        } catch (RuntimeException e) {
            nic.close();
            arena.close();
            throw e;
        }
    }

    /**
     * The software NIC between two processes of one host
     * (docs/design/two-process.md): one QP, CQ and source buffer here; the
     * inbox lies in this process's shared-memory wire, which the peer
     * process maps. The TCP exchange swaps QPN, rkey and inbox address
     * (INFO), the wire names (WIRE) and the environment headers (ENV); each
     * side attaches the other's wire, connects its QP to the peer's QPN and
     * meets the other at a barrier. From then on the run control is that of
     * two hosts ({@link GdaPeerProtocol}).
     */
    private static MiniGda openSoftNicPeer(GdaSetup setup) {
        Mlx5Options o = setup.mlx5();
        if (setup.target() == Target.CUDA) {
            Backend.CUDA.ensureAvailability();
        }
        Backend.SOFTNIC.ensureAvailability();
        NativeLib lib = setup.target() == Target.CUDA ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB;
        if (lib == null) {
            throw new MarrowException("mini-gda runner library not loaded");
        }
        // each side's engine threads are its own flags' (gda loaded places the QPs per run: GdaLoaded.runSide)
        SoftNic nic = SoftNic.open(SoftNic.Options.defaults().withPollMode(setup.pollMode())
                .withEngineThreads(setup.engineThreads()).withEngineCpu(setup.engineCpu()).withQuiet(true));
        Arena arena = Arena.ofShared();
        PeerExchange x = null;
        try {
            long n = setup.bufferBytes();
            ShmWire wire = nic.createWire(n);
            CompletionQueue cq = nic.createCompletionQueue(setup.logCq(), setup.collapsedCq(), setup.collapsedCq());
            QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(setup.logSq())
                    .withMaxInlineData(setup.maxInline()));
            MemoryRegion src = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE);
            MemoryRegion in = nic.registerMemory(wire.allocate(n), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            wire.export(in);
            wire.export(qp);
            x = PeerExchange.open(o.peer(), o.peerTimeout());
            PeerInfo remote = x.exchange(new PeerInfo(qp.qpn(), 0, in.rkey(), 0, PeerInfo.LINK_ETHERNET, 5, null,
                    in.address(), n));
            if (remote.rkey() == 0 || remote.len() < 8) {
                throw new MarrowException("peer " + x.peerName() + " exposed no writable inbox: " + remote);
            }
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
            if (setup.target() == Target.CUDA) { // the CUDA context now, not inside a peer's bounded wait
                prepareCuda(setup.cudaDevice());
            }
            x.barrier(); // both QPs are RTS before anything is written
            MemorySegment ep = endpoint(arena, Nic.SOFTNIC, setup.placement(), qpView(arena, qp), cqView(arena, cq),
                    new Buffers(src.address(), n, src.lkey(), in.address(), remote.addr(), remote.len(),
                            remote.rkey()), true);
            String conn = String.format("softnic QP 0x%x <-> peer process QP 0x%x over shared-memory wire %s "
                    + "(%s, peer %s)", qp.qpn(), remote.qpn(), peerWire, o.role(), x.peerName());
            return new MiniGda(setup, arena, new GdaMode.SoftNicPeer(nic, x, conn, ep, in.memory(), peerEnv, pw,
                    remote, qp));
        } catch (RuntimeException e) {
            if (x != null) {
                x.close();
            }
            nic.close();
            arena.close();
            throw e;
        }
    }

    /**
     * Placement gpu: SQ, CQ, DBRs and doorbell pages in GPU memory, served by
     * the software NIC's device engine (a persistent kernel on setup.nicSms()
     * SMs); GPU-scope orderings are sufficient there. The data buffers are
     * GPU memory too; the kernel validates every iteration's bytes itself.
     */
    private static MiniGda openDeviceEngine(GdaSetup setup) {
        if (setup.target() != Target.CUDA) {
            throw new IllegalArgumentException("--placement gpu puts the queues in GPU memory, which CPU threads "
                    + "cannot reach: use --target cuda");
        }
        if (setup.nic() == Nic.MLX5) {
            return openMlx5Gpu(setup);
        }
        if (setup.mlx5().twoHost()) {
            throw new IllegalArgumentException("--peer with --placement gpu needs --nic mlx5: the software NIC's "
                    + "device engine connects its two QPs inside this process (two processes run the CPU engine: "
                    + "--placement host)");
        }
        Backend.CUDA.ensureAvailability();
        Backend.SOFTNIC.ensureAvailability(); // the counter names
        if (GdaFfi.Cuda.LIB == null) {
            throw new MarrowException("mini-gda CUDA runner library not loaded");
        }
        Arena arena = Arena.ofShared();
        try {
            int cqFlags = setup.collapsedCq()
                    ? dev.marrow.api.softnic.CqFlag.COLLAPSED.code() | dev.marrow.api.softnic.CqFlag.OVERRUN_IGNORE.code()
                    : 0;
            DeviceEngineSession d = DeviceEngineSession.open(setup, arena, cqFlags);
            return new MiniGda(setup, arena, new GdaMode.DeviceEngine(d, d.endpointA(), d.endpointB()));
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * mlx5 + placement gpu: the SQ, CQ and doorbell records in GPU memory, created through DevX
     * (marrow_mlx5_gpu_qp_open; docs/design/mlx5-queue-formats.md §7). Checks, in order: the GPU,
     * libibverbs/libmlx5, an mlx5 device, DevX on the opened device; each missing one ends the run as
     * unavailable (exit 77) with its reason. Then the session is built as on host placement
     * ({@link #openMlx5}: one host or --peer), with DevX QPs instead of verbs ones. Both sides need a GPU:
     * the queues live in it.
     */
    private static MiniGda openMlx5Gpu(GdaSetup setup) {
        if (setup.collapsedCq()) {
            throw new IllegalArgumentException("collapsed CQs are a software NIC option: the mlx5 QP's send CQ "
                    + "is created without collapse/overrun-ignore");
        }
        if (!Backend.CUDA.isAvailable()) {
            throw new BackendUnavailableException(GPU_QUEUES + "no usable GPU to hold the queues: "
                    + Backend.CUDA.unavailabilityCause().getMessage(), Backend.CUDA.unavailabilityCause());
        }
        if (!Backend.VERBS.isAvailable()) {
            throw new BackendUnavailableException(GPU_QUEUES + "no mlx5 device: "
                    + Backend.VERBS.unavailabilityCause().getMessage(), Backend.VERBS.unavailabilityCause());
        }
        return openMlx5(setup);
    }

    /** The prefix of every refusal of mlx5 + placement gpu. */
    static final String GPU_QUEUES = "--nic mlx5 --placement gpu (queues in GPU memory through DevX): ";

    /** The device engine: distinct SMs its blocks ran on; -1 on any other NIC. */
    public int nicSmsUsed() {
        return mode instanceof GdaMode.DeviceEngine d ? d.engine().distinctSms() : -1;
    }

    /** The device engine's connection text; null elsewhere. */
    private static String deviceEngineText(GdaSetup setup, DeviceEngineSession d) {
        return String.format("software NIC device engine on %d SM(s) (%d distinct, occupancy %d block(s)/SM)",
                setup.nicSms(), d.distinctSms(), d.blocksPerSm());
    }

    /**
     * cuda + mlx5, one host (loopback pair) or two (--peer). Placement host: verbs QPs, views from
     * mlx5dv_init_obj. Placement gpu: DevX QPs with their queues in GPU memory (checked first by
     * {@link #openMlx5Gpu}); the data buffers are host memory registered through verbs on both.
     */
    private static MiniGda openMlx5(GdaSetup setup) {
        Mlx5Options o = setup.mlx5();
        boolean gpuQueues = setup.placement() == Placement.GPU;
        boolean responder = o.role() == PeerRole.RESPONDER && !gpuQueues; // GPU queues: a GPU on both sides
        // The mlx5 model's UAR is plain memory the engine reads (docs/design/mlx5-model.md §4): the CPU
        // executor's C11 orderings are enough there, so cpu + mlx5 runs on the model (one host).
        boolean cpuOnModel = setup.target() == Target.CPU && RdmaCore.model() && !o.twoHost() && !gpuQueues;
        if (setup.target() != Target.CUDA && !cpuOnModel) {
            throw new IllegalArgumentException("--nic mlx5 runs with --target cuda only: the CPU executor's "
                    + "orderings (C11 fences) were not written for a write-combined MMIO doorbell (no sfence/WC "
                    + "flush), so cpu + mlx5 is not supported (except one host on the mlx5 model, "
                    + RdmaCore.ENV + "=model); use --target cuda, or --nic softnic for the CPU");
        }
        if (setup.collapsedCq()) {
            throw new IllegalArgumentException("collapsed CQs are a software NIC option: the mlx5 QP's send CQ "
                    + "is created without collapse/overrun-ignore");
        }
        Backend.VERBS.ensureAvailability();
        // The responder needs a GPU only for the round trip's peer role; without one it still
        // serves issue and put+completion (and refuses a round trip with this reason).
        String rttRefusal = null;
        if (cpuOnModel) {
            if (GdaFfi.Host.LIB == null) {
                throw new MarrowException("mini-gda runner library not loaded");
            }
        } else if (!responder || Backend.CUDA.isAvailable()) {
            Backend.CUDA.ensureAvailability();
            if (GdaFfi.Cuda.LIB == null) {
                throw new MarrowException("mini-gda CUDA runner library not loaded");
            }
        } else {
            rttRefusal = "the round trip's peer role is a GPU thread on the responder, and the responder has no "
                    + "usable GPU: " + Backend.CUDA.unavailabilityCause().getMessage()
                    + " (issue and put+completion need no GPU there)";
        }
        Mlx5Device dev;
        String what = gpuQueues ? GPU_QUEUES : "mini-gda on mlx5: ";
        try {
            dev = Mlx5Device.open(o.device(), o.port(), o.gidIndex());
        } catch (NativeException e) { // ENODEV: libibverbs/libmlx5 or the device missing
            throw e.unavailableIfNoDevice(what + e.getMessage());
        }
        if (gpuQueues) {
            try {
                dev.requireDevx();
            } catch (NativeException e) { // ENODEV: libmlx5 without DevX, or the context refused it
                RuntimeException u = e.unavailableIfNoDevice(what + e.getMessage());
                try {
                    dev.close();
                } catch (RuntimeException c) {
                    u.addSuppressed(c);
                }
                throw u;
            }
        }
        // What was actually opened (name, port, GID index) goes into the records.
        GdaSetup opened = setup.withMlx5(o.withDevice(dev.name(), dev.gidIndex()).withPort(dev.port()));
        Arena arena = Arena.ofShared();
        List<HardwareQueuePair> qps = new ArrayList<>();
        List<Mlx5MemoryRegion> mrs = new ArrayList<>();
        PeerExchange x = null;
        long n = setup.bufferBytes();
        try {
            if (!o.twoHost()) {
                HardwareQueuePair a = add(qps, newQueuePair(dev, setup));
                HardwareQueuePair b = add(qps, newQueuePair(dev, setup));
                opened = granted(opened, a);
                Mlx5MemoryRegion srcA = add(mrs, dev.register(arena.allocate(n, 4096), Access.LOCAL_WRITE));
                Mlx5MemoryRegion srcB = add(mrs, dev.register(arena.allocate(n, 4096), Access.LOCAL_WRITE));
                Mlx5MemoryRegion inA = add(mrs, dev.register(arena.allocate(n, 4096),
                        Access.LOCAL_WRITE | Access.REMOTE_WRITE));
                Mlx5MemoryRegion inB = add(mrs, dev.register(arena.allocate(n, 4096),
                        Access.LOCAL_WRITE | Access.REMOTE_WRITE));
                PeerInfo infoA = a.localInfo(inA);
                PeerInfo infoB = b.localInfo(inB);
                a.connect(infoB, null);
                b.connect(infoA, null);
                MemorySegment epA = endpoint(arena, Nic.MLX5, setup.placement(), a.qpView(), a.cqView(),
                        buffers(srcA, inA, infoB));
                MemorySegment epB = endpoint(arena, Nic.MLX5, setup.placement(), b.qpView(), b.cqView(),
                        buffers(srcB, inB, infoA));
                String conn = String.format("%s port %d: %sQP 0x%x <-> QP 0x%x (one host)", dev.name(),
                        dev.port(), devxText(a), a.qpn(), b.qpn());
                Runnable reconnect = () -> {
                    a.reset();
                    b.reset();
                    a.connect(infoB, null);
                    b.connect(infoA, null);
                };
                return new MiniGda(opened, arena, new GdaMode.Mlx5Pair(new GdaMode.Mlx5Queues(dev, qps, mrs), conn,
                        new GdaMode.LocalPair(epA, epB, inA.buffer(), inB.buffer(), reconnect)));
            }
            HardwareQueuePair qp = add(qps, newQueuePair(dev, setup));
            opened = granted(opened, qp);
            Mlx5MemoryRegion src = add(mrs, dev.register(arena.allocate(n, 4096), Access.LOCAL_WRITE));
            Mlx5MemoryRegion in = add(mrs, dev.register(arena.allocate(n, 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE));
            x = PeerExchange.open(o.peer(), o.peerTimeout());
            PeerInfo remote = x.exchange(qp.localInfo(in));
            if (remote.rkey() == 0 || remote.len() < 8) {
                throw new MarrowException("peer " + x.peerName() + " exposed no writable inbox: " + remote);
            }
            Map<String, Object> peerEnv = PeerEnvironment.exchange(x);
            qp.connect(remote, null);
            if (rttRefusal == null) { // the CUDA context now, not inside a peer's bounded wait
                prepareCuda(setup.cudaDevice());
            }
            x.barrier(); // both QPs are RTS before anything is written
            // The destination is the other host's inbox: in WQEs only, never mapped or read here.
            MemorySegment ep = endpoint(arena, Nic.MLX5, setup.placement(), qp.qpView(), qp.cqView(),
                    buffers(src, in, remote), true);
            String conn = String.format("%s port %d: %sQP 0x%x <-> peer QP 0x%x at %s (%s)", dev.name(),
                    dev.port(), devxText(qp), qp.qpn(), remote.qpn(), x.peerName(), o.role());
            return new MiniGda(opened, arena, new GdaMode.Mlx5Peer(new GdaMode.Mlx5Queues(dev, qps, mrs), x, conn, ep,
                    in.buffer(), rttRefusal, peerEnv));
        } catch (RuntimeException e) {
            if (x != null) {
                x.close();
            }
            release(qps, mrs, dev, arena, e);
            throw e;
        }
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

    /** The setup with the SQ size libmlx5 granted (logSq counts WQEBBs on both NICs). */
    private static GdaSetup granted(GdaSetup s, HardwareQueuePair qp) {
        return s.withQueues(Integer.numberOfTrailingZeros(qp.sqWqebbs()), s.logCq(), s.collapsedCq());
    }

    /** The QP shape of the setup; each call draws its own start PSN. */
    private static Mlx5QueuePair.Config qpConfig(GdaSetup s) {
        Mlx5QueuePair.Config d = Mlx5QueuePair.Config.defaults();
        QueuePlacement p = s.placement() == Placement.GPU ? QueuePlacement.GPU : QueuePlacement.HOST;
        return new Mlx5QueuePair.Config(s.logSq(), s.logCq(), s.maxInline(), d.access(), p, d.sqPsn());
    }

    /** A verbs QP (placement host) or a DevX QP with its queues on the setup's GPU (placement gpu). */
    private static HardwareQueuePair newQueuePair(Mlx5Device dev, GdaSetup s) {
        if (s.placement() != Placement.GPU) {
            return dev.createQueuePair(qpConfig(s));
        }
        try {
            return dev.createGpuQueuePair(qpConfig(s), s.cudaDevice());
        } catch (NativeException e) { // ENODEV: no DevX or no GPU after all
            throw e.unavailableIfNoDevice(GPU_QUEUES + e.getMessage());
        }
    }

    /** "DevX (GPU queues[; fallbacks]) " for a DevX QP, "" for a verbs one. */
    private static String devxText(HardwareQueuePair qp) {
        if (!(qp instanceof Mlx5GpuQueuePair g)) {
            return "";
        }
        return "DevX (queues in GPU memory" + (g.note().isEmpty() ? "" : "; " + g.note()) + ") ";
    }

    private static Buffers buffers(Mlx5MemoryRegion src, Mlx5MemoryRegion inbox, PeerInfo to) {
        return new Buffers(src.buffer().address(), src.buffer().byteSize(), src.lkey(), inbox.buffer().address(),
                to.addr(), to.len(), to.rkey());
    }

    private static <T> T add(List<? super T> l, T t) {
        l.add(t);
        return t;
    }

    /** Close order: QPs, then MRs, then the device, then the memory they covered. */
    private static void release(GdaMode.Mlx5Queues hw, Arena arena, Throwable first) {
        release(hw.qps(), hw.mrs(), hw.device(), arena, first);
    }

    private static void release(List<HardwareQueuePair> qps, List<Mlx5MemoryRegion> mrs, Mlx5Device dev, Arena arena,
                                Throwable first) {
        List<AutoCloseable> order = new ArrayList<>();
        for (int i = qps.size() - 1; i >= 0; i--) {
            order.add(qps.get(i));
        }
        for (int i = mrs.size() - 1; i >= 0; i--) {
            order.add(mrs.get(i));
        }
        order.add(dev);
        RuntimeException failed = null;
        boolean allClosed = true;
        for (AutoCloseable c : order) {
            try {
                c.close();
            } catch (Exception e) {
                allClosed = false;
                if (first != null) {
                    first.addSuppressed(e);
                } else if (failed == null) {
                    failed = e instanceof RuntimeException r ? r : new MarrowException("close failed: " + e, e);
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (allClosed) {
            arena.close(); // only once no QP or MR still covers the memory (else it leaks, on purpose)
        }
        if (failed != null) {
            throw failed;
        }
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
    private SoftNic cpuEngineNic() {
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
        return localPair() instanceof GdaMode.LocalPair p ? p.epB() : null;
    }

    /** The buffer A writes into: after a run it holds the last iteration's payload. */
    public MemorySegment inboxB() {
        if (mode instanceof GdaMode.DeviceEngine d) {
            return d.inbox(); // throws: GPU memory
        }
        if (!(localPair() instanceof GdaMode.LocalPair p)) {
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
        GdaMode.Mlx5Queues hw = switch (mode) {
            case GdaMode.Mlx5Pair p -> p.hw();
            case GdaMode.Mlx5Peer p -> p.hw();
            default -> null;
        };
        if (hw == null) {
            return List.of();
        }
        List<Mlx5GpuQueuePair> l = new ArrayList<>();
        for (HardwareQueuePair q : hw.qps()) {
            if (q instanceof Mlx5GpuQueuePair g) {
                l.add(g);
            }
        }
        return l;
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
        GdaMode.LocalPair pair = localPair();
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
    private GdaMode.LocalPair localPair() {
        return switch (mode) {
            case GdaMode.SoftNicPair s -> s.pair();
            case GdaMode.Mlx5Pair p -> p.pair();
            case GdaMode.DeviceEngine d -> null;
            case GdaMode.TwoSided p -> null;
        };
    }

    /** Counter deltas (the device engine's counters are running totals). */
    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        after.forEach((k, v) -> m.put(k, v - before.getOrDefault(k, 0L)));
        return m;
    }

    /** Where one endpoint's writes come from (lkey) and go to (rkey), and where the peer's writes land. */
    record Buffers(long localAddr, long localLen, int lkey, long inboxAddr, long remoteAddr, long remoteLen,
                   int rkey) {
    }

    /**
     * A marrow_gda_endpoint over a QP's and CQ's views. On mlx5 the UAR is
     * device MMIO: MARROW_GDA_EP_UAR_MMIO makes the CUDA runner map it with
     * io_memory (PeerMappingOverride=1); the software NIC's mailbox is RAM.
     * The runner registers the views' host memory itself per run, so the
     * queues must not also be mapped with Mlx5QueuePair.mapIntoGpu.
     */
    static MemorySegment endpoint(Arena arena, Nic nic, Placement placement, MemorySegment qpView,
                                  MemorySegment cqView, Buffers b) {
        return endpoint(arena, nic, placement, qpView, cqView, b, false);
    }

    /** remoteDst: the destination is another host's memory (MARROW_GDA_EP_REMOTE_DST). */
    static MemorySegment endpoint(Arena arena, Nic nic, Placement placement, MemorySegment qpView,
                                  MemorySegment cqView, Buffers b, boolean remoteDst) {
        StructLayout el = GdaLayouts.ENDPOINT;
        MemorySegment ep = CStruct.allocate(arena, el);
        setInt(ep, el, "placement", placement.code());
        setInt(ep, el, "lkey", b.lkey());
        setAddress(ep, el, "qp", qpView);
        setAddress(ep, el, "cq", cqView);
        setLong(ep, el, "local_addr", b.localAddr());
        setLong(ep, el, "local_len", b.localLen());
        setLong(ep, el, "inbox_addr", b.inboxAddr());
        setLong(ep, el, "remote_addr", b.remoteAddr());
        setLong(ep, el, "remote_len", b.remoteLen());
        setInt(ep, el, "rkey", b.rkey());
        setInt(ep, el, "flags", (nic == Nic.MLX5 ? EP_UAR_MMIO : 0) | (remoteDst ? EP_REMOTE_DST : 0));
        return ep;
    }

    /** MARROW_GDA_EP_UAR_MMIO of marrow_gda.h (value from the library). */
    static final int EP_UAR_MMIO = EndpointFlag.UAR_MMIO.code();
    /** MARROW_GDA_EP_REMOTE_DST of marrow_gda.h (value from the library). */
    static final int EP_REMOTE_DST = EndpointFlag.REMOTE_DST.code();

    /** struct marrow_qp_view of a softnic QP. */
    static MemorySegment qpView(Arena arena, QueuePair q) {
        StructLayout qv = EmuLayouts.QP_VIEW;
        MemorySegment qpView = CStruct.allocate(arena, qv);
        setInt(qpView, qv, "qpn", q.qpn());
        setInt(qpView, qv, "sq_wqe_cnt", q.sqWqebbs());
        setInt(qpView, qv, "sq_stride", q.sqStride());
        setInt(qpView, qv, "max_inline_data", q.maxInlineData());
        setAddress(qpView, qv, "sq_buf", q.sendQueue());
        setAddress(qpView, qv, "rq_buf", MemorySegment.NULL);
        setAddress(qpView, qv, "dbrec", q.dbrec());
        setAddress(qpView, qv, "uar", q.uar());
        setLong(qpView, qv, "uar_size", q.uar().byteSize());
        return qpView;
    }

    /** struct marrow_cq_view of a softnic CQ. */
    static MemorySegment cqView(Arena arena, CompletionQueue cq) {
        StructLayout cv = EmuLayouts.CQ_VIEW;
        MemorySegment cqView = CStruct.allocate(arena, cv);
        setInt(cqView, cv, "cqn", cq.cqn());
        setInt(cqView, cv, "cqe_cnt", cq.entries());
        setInt(cqView, cv, "cqe_size", cq.cqeSize());
        setInt(cqView, cv, "flags", cq.flags());
        setAddress(cqView, cv, "buf", cq.buffer());
        setAddress(cqView, cv, "dbrec", cq.dbrec());
        return cqView;
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
        switch (mode) {
            case GdaMode.SoftNicPair s -> {
                try {
                    s.nic().close();
                } finally {
                    arena.close();
                }
            }
            case GdaMode.DeviceEngine d -> {
                try {
                    d.engine().close();
                } finally {
                    arena.close();
                }
            }
            case GdaMode.Mlx5Pair p -> release(p.hw(), arena, null);
            case GdaMode.Mlx5Peer p -> {
                RuntimeException first = closePeerExchange(p);
                release(p.hw(), arena, first);
                if (first != null) {
                    throw first;
                }
            }
            case GdaMode.SoftNicPeer p -> {
                RuntimeException first = closePeerExchange(p);
                try {
                    p.nic().close(); // the wire first: nothing lands in the inbox after this
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                } finally {
                    arena.close();
                }
                if (first != null) {
                    throw first;
                }
            }
        }
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
