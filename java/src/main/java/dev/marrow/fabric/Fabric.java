// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.RdmaCore;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.mlx5.HardwareQueuePair;
import dev.marrow.mlx5.Mlx5Device;
import dev.marrow.mlx5.Mlx5GpuQueuePair;
import dev.marrow.mlx5.Mlx5MemoryRegion;
import dev.marrow.mlx5.Mlx5QueuePair;
import dev.marrow.mlx5.QueuePlacement;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * The one queue layer under every experiment (docs/design/architecture.md): opened once per run
 * from the NIC ({@code --nic}) and where the queues live ({@code --placement}), it hands the
 * experiment connected endpoints (struct marrow_gda_endpoint over QPs, CQs, doorbells and
 * registered memory) and owns their lifetime: closing the fabric closes every queue, memory
 * region, peer exchange and device it built, in that order, then the memory they covered.
 *
 * <p>Which combinations exist is decided here and nowhere else ({@link #check}): a combination
 * that makes no sense is an {@link IllegalArgumentException} (exit 2), a backend that is missing
 * a {@link BackendUnavailableException} with the reason (exit 77).
 *
 * <p>Queue sets: {@link #loopback} (N QPs each connected to itself: rate, goodput, kernel-cost),
 * {@link #pair} (two QPs connected to each other in this process: latency, loaded) and
 * {@link #peer} (one QP connected to another process's or host's: --peer). The software NIC's
 * device engine (placement gpu) builds its queues inside the runner library; the fabric checks
 * that combination and owns the session handed to {@link #adopt}.
 */
public final class Fabric implements AutoCloseable {

    /**
     * What one fabric is opened with.
     *
     * @param purpose       the experiment's name in refusals ("mini-gda", "mini-gda rate", ...)
     * @param engineThreads the software NIC's CPU engine threads
     * @param engineCpu     pin the first engine thread here and the next ones after it (-1: none)
     * @param engineCpus    engine thread i pinned to engineCpus[i] (null: none; wins over engineCpu)
     * @param nicSms        placement gpu on the software NIC: SMs of the device engine
     * @param collapsedCq   cc = 1 CQs (software NIC only)
     * @param mlx5          device, GID and peer of {@link Nic#MLX5}; the peer on the software NIC too
     */
    public record Options(String purpose, Target target, Nic nic, Placement placement, int cudaDevice,
                          SoftNic.PollMode poll, int engineThreads, int engineCpu, int[] engineCpus, int nicSms,
                          boolean collapsedCq, Mlx5Options mlx5) {
        public Options {
            mlx5 = mlx5 == null ? Mlx5Options.defaults() : mlx5;
            poll = poll == null ? SoftNic.PollMode.HOT : poll;
        }

        /** The software NIC's CPU engine, host placement, one hot engine thread, no peer. */
        public static Options softNic(String purpose, Target target) {
            return new Options(purpose, target, Nic.SOFTNIC, Placement.HOST, 0, SoftNic.PollMode.HOT, 1, -1, null, 1,
                    false, null);
        }

        public Options withNic(Nic n, Placement p) {
            return new Options(purpose, target, n, p, cudaDevice, poll, engineThreads, engineCpu, engineCpus, nicSms,
                    collapsedCq, mlx5);
        }

        public Options withEngine(SoftNic.PollMode pm, int threads, int cpu, int[] cpus) {
            return new Options(purpose, target, nic, placement, cudaDevice, pm, threads, cpu, cpus, nicSms,
                    collapsedCq, mlx5);
        }

        public Options withCudaDevice(int d) {
            return new Options(purpose, target, nic, placement, d, poll, engineThreads, engineCpu, engineCpus, nicSms,
                    collapsedCq, mlx5);
        }

        /** The software NIC's device engine: queues in GPU memory, served by a kernel (placement gpu). */
        public boolean deviceEngine() {
            return nic == Nic.SOFTNIC && placement == Placement.GPU;
        }
    }

    /** The shape of each QP and its send CQ. */
    public record QueueShape(int logSq, int logCq, int maxInline, boolean collapsedCq) {
        public QueueShape(int logSq, int logCq, int maxInline) {
            this(logSq, logCq, maxInline, false);
        }
    }

    /** The prefix of every refusal of mlx5 + placement gpu. */
    public static final String GPU_QUEUES = "--nic mlx5 --placement gpu (queues in GPU memory through DevX): ";

    private final Options options;
    private final Arena arena;
    private final SoftNic softNic;            // the CPU engine; null elsewhere
    private final Mlx5Device device;          // mlx5; null elsewhere
    private final String rttRefusal;          // mlx5 responder without a GPU; null elsewhere
    final List<HardwareQueuePair> qps = new ArrayList<>();
    final List<Mlx5MemoryRegion> mrs = new ArrayList<>();
    private final List<AutoCloseable> adopted = new ArrayList<>();
    dev.marrow.peer.PeerExchange exchange;
    private boolean closed;

    private Fabric(Options options, Arena arena, SoftNic softNic, Mlx5Device device, String rttRefusal) {
        this.options = options;
        this.arena = arena;
        this.softNic = softNic;
        this.device = device;
        this.rttRefusal = rttRefusal;
    }

    /**
     * Refuses a combination that makes no sense (IllegalArgumentException, exit 2) and one whose
     * backend is missing here (BackendUnavailableException with the reason, exit 77), in the order
     * a user would fix them; opens nothing.
     */
    public static void check(Options o) {
        if (o.placement() == Placement.GPU) {
            if (o.target() != Target.CUDA) {
                throw new IllegalArgumentException("--placement gpu puts the queues in GPU memory, which CPU "
                        + "threads cannot reach: use --target cuda");
            }
            if (o.nic() == Nic.MLX5) {
                if (o.collapsedCq()) {
                    throw collapsedOnMlx5();
                }
                if (!Backend.CUDA.isAvailable()) {
                    throw new BackendUnavailableException(GPU_QUEUES + "no usable GPU to hold the queues: "
                            + Backend.CUDA.unavailabilityCause().getMessage(), Backend.CUDA.unavailabilityCause());
                }
                if (!Backend.VERBS.isAvailable()) {
                    throw new BackendUnavailableException(GPU_QUEUES + "no mlx5 device: "
                            + Backend.VERBS.unavailabilityCause().getMessage(), Backend.VERBS.unavailabilityCause());
                }
            } else {
                if (o.mlx5().twoHost()) {
                    throw new IllegalArgumentException("--peer with --placement gpu needs --nic mlx5: the software "
                            + "NIC's device engine connects its two QPs inside this process (two processes run the "
                            + "CPU engine: --placement host)");
                }
                Backend.CUDA.ensureAvailability();
                Backend.SOFTNIC.ensureAvailability(); // the counter names
                return;
            }
        }
        if (o.nic() == Nic.MLX5) {
            // The mlx5 model's UAR is plain memory the engine reads (docs/design/mlx5-model.md §4): the CPU
            // executor's C11 orderings are enough there, so cpu + mlx5 runs on the model (one host).
            boolean cpuOnModel = o.target() == Target.CPU && RdmaCore.model() && !o.mlx5().twoHost();
            if (o.target() != Target.CUDA && !cpuOnModel) {
                throw new IllegalArgumentException("--nic mlx5 runs with --target cuda only: the CPU executor's "
                        + "orderings (C11 fences) were not written for a write-combined MMIO doorbell (no sfence/WC "
                        + "flush), so cpu + mlx5 is not supported (except one host on the mlx5 model, "
                        + RdmaCore.ENV + "=model); use --target cuda, or --nic softnic for the CPU");
            }
            if (o.collapsedCq()) {
                throw collapsedOnMlx5();
            }
            Backend.VERBS.ensureAvailability();
            if (cpuOnModel) {
                return;
            }
            if (!mlx5Responder(o) || Backend.CUDA.isAvailable()) {
                Backend.CUDA.ensureAvailability();
            }
            return;
        }
        if (o.target() == Target.CUDA) {
            Backend.CUDA.ensureAvailability();
        }
        Backend.SOFTNIC.ensureAvailability();
    }

    private static IllegalArgumentException collapsedOnMlx5() {
        return new IllegalArgumentException("collapsed CQs are a software NIC option: the mlx5 QP's send CQ "
                + "is created without collapse/overrun-ignore");
    }

    /** A responder with host queues needs a GPU only for the round trip's peer role. */
    private static boolean mlx5Responder(Options o) {
        return o.mlx5().role() == PeerRole.RESPONDER && o.placement() != Placement.GPU;
    }

    /** Checks the combination ({@link #check}) and opens the NIC: the software NIC, a ConnectX, or nothing yet. */
    public static Fabric open(Options o) {
        check(o);
        if (o.deviceEngine()) {
            return new Fabric(o, Arena.ofShared(), null, null, null);
        }
        if (o.nic() == Nic.MLX5) {
            return openMlx5(o);
        }
        SoftNic nic = SoftNic.open(SoftNic.Options.defaults().withPollMode(o.poll())
                .withEngineThreads(o.engineThreads()).withEngineCpu(o.engineCpus() == null ? o.engineCpu() : -1)
                .withQuiet(true));
        if (o.engineCpus() != null) {
            try {
                nic.pinEngines(o.engineCpus());
            } catch (NativeException e) {
                nic.close();
                throw new IllegalArgumentException("--engine-cpus: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                nic.close();
                throw e;
            }
        }
        return new Fabric(o, Arena.ofShared(), nic, null, null);
    }

    private static Fabric openMlx5(Options o) {
        boolean gpuQueues = o.placement() == Placement.GPU;
        // The responder needs a GPU only for the round trip's peer role; without one it still
        // serves issue and put+completion (and refuses a round trip with this reason).
        String rttRefusal = mlx5Responder(o) && !Backend.CUDA.isAvailable()
                ? "the round trip's peer role is a GPU thread on the responder, and the responder has no "
                + "usable GPU: " + Backend.CUDA.unavailabilityCause().getMessage()
                + " (issue and put+completion need no GPU there)"
                : null;
        String what = gpuQueues ? GPU_QUEUES : o.purpose() + " on mlx5: ";
        Mlx5Device dev;
        try {
            dev = Mlx5Device.open(o.mlx5().device(), o.mlx5().port(), o.mlx5().gidIndex());
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
        return new Fabric(o, Arena.ofShared(), null, dev, rttRefusal);
    }

    public Options options() {
        return options;
    }

    /** The memory of this fabric's endpoints and buffers; it lives until {@link #close}. */
    public Arena arena() {
        return arena;
    }

    /** The software NIC's CPU engine; null on mlx5 and on the device engine. */
    public SoftNic softNic() {
        return softNic;
    }

    /** The ConnectX; null on the software NIC. */
    public Mlx5Device mlx5Device() {
        return device;
    }

    /** The mlx5 options with what was actually opened (device name, port, GID index) for the records. */
    public Mlx5Options openedMlx5() {
        Mlx5Options o = options.mlx5();
        return device == null ? o : o.withDevice(device.name(), device.gidIndex()).withPort(device.port());
    }

    /** Why this side (an mlx5 responder without a GPU) cannot serve a round trip's peer role; null when it can. */
    public String rttRefusal() {
        return rttRefusal;
    }

    /** The DevX QPs with GPU-resident queues among this fabric's QPs, in creation order. */
    public List<Mlx5GpuQueuePair> gpuQueuePairs() {
        List<Mlx5GpuQueuePair> l = new ArrayList<>();
        for (HardwareQueuePair q : qps) {
            if (q instanceof Mlx5GpuQueuePair g) {
                l.add(g);
            }
        }
        return l;
    }

    /** Hands a session built elsewhere (the device engine's) to the fabric, which closes it before its memory. */
    public <T extends AutoCloseable> T adopt(T session) {
        adopted.add(session);
        return session;
    }

    /** N QPs each connected to itself (see {@link LoopbackQueues}). */
    public LoopbackQueues loopback(int count, QueueShape shape, LoopbackQueues.Buffers buffers) {
        ensureOpen();
        return LoopbackQueues.open(this, count, shape, buffers);
    }

    /** Two QPs connected to each other in this process (see {@link PairQueues}). */
    public PairQueues.Pair pair(QueueShape shape, long bufferBytes) {
        ensureOpen();
        return PairQueues.pair(this, shape, bufferBytes);
    }

    /**
     * One QP connected to the peer's ({@code options().mlx5().peer()}); beforeBarrier runs after
     * the exchange and before the barrier that says both QPs are ready (see {@link PairQueues}).
     */
    public PairQueues.Peer peer(QueueShape shape, long bufferBytes, Runnable beforeBarrier) {
        ensureOpen();
        return PairQueues.peer(this, shape, bufferBytes, beforeBarrier);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the fabric is closed");
        }
        if (options.deviceEngine()) {
            throw new IllegalStateException("the device engine builds its queues in the runner library");
        }
    }

    /** The SQ size granted, as log2 WQEBBs (libmlx5 may round up). */
    static int grantedLogSq(HardwareQueuePair qp) {
        return Integer.numberOfTrailingZeros(qp.sqWqebbs());
    }

    /** The mlx5 QP shape; each call draws its own start PSN. */
    Mlx5QueuePair.Config mlx5Config(QueueShape s) {
        Mlx5QueuePair.Config d = Mlx5QueuePair.Config.defaults();
        QueuePlacement p = options.placement() == Placement.GPU ? QueuePlacement.GPU : QueuePlacement.HOST;
        return new Mlx5QueuePair.Config(s.logSq(), s.logCq(), s.maxInline(), d.access(), p, d.sqPsn());
    }

    /** A verbs QP (placement host) or a DevX QP with its queues on the fabric's GPU (placement gpu); owned. */
    HardwareQueuePair newMlx5QueuePair(QueueShape s) {
        HardwareQueuePair qp;
        if (options.placement() != Placement.GPU) {
            qp = device.createQueuePair(mlx5Config(s));
        } else {
            try {
                qp = device.createGpuQueuePair(mlx5Config(s), options.cudaDevice());
            } catch (NativeException e) { // ENODEV: no DevX or no GPU after all
                throw e.unavailableIfNoDevice(GPU_QUEUES + e.getMessage());
            }
        }
        qps.add(qp);
        return qp;
    }

    /** Registers host memory on the ConnectX; owned. */
    Mlx5MemoryRegion registerMlx5(long bytes, int access) {
        Mlx5MemoryRegion mr = device.register(arena.allocate(bytes, 4096), access);
        mrs.add(mr);
        return mr;
    }

    @Override
    public void close() {
        closeAfter(null);
    }

    /**
     * Closes everything: a peer exchange, adopted sessions, the software NIC (its engines stop
     * before the memory they read goes), or on mlx5 the QPs, then the MRs, then the device; then
     * the memory, which is kept (leaked on purpose) when a QP or MR that covers it failed to close.
     * With first (an earlier failure of the caller's teardown), every failure here is attached
     * to it and first is thrown; otherwise the first failure here is.
     */
    public void closeAfter(RuntimeException first) {
        if (closed) {
            if (first != null) {
                throw first;
            }
            return;
        }
        closed = true;
        List<AutoCloseable> order = new ArrayList<>();
        if (exchange != null) {
            order.add(exchange);
        }
        order.addAll(adopted.reversed());
        if (softNic != null) {
            order.add(softNic);
        }
        order.addAll(qps.reversed());
        order.addAll(mrs.reversed());
        if (device != null) {
            order.add(device);
        }
        RuntimeException failed = first;
        boolean keepMemory = false;
        for (AutoCloseable c : order) {
            try {
                c.close();
            } catch (Exception e) {
                keepMemory |= device != null && c != exchange; // a QP or MR may still cover it
                if (failed == null) {
                    failed = e instanceof RuntimeException r ? r : new MarrowException("close failed: " + e, e);
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (!keepMemory) {
            arena.close();
        }
        if (failed != null) {
            throw failed;
        }
    }
}
