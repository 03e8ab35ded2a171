// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Map;

import static dev.marrow.gda.internal.GdaLayouts.off;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * mini-gda: one Java API over the execution targets (cpu, cuda) and the
 * NICs (softnic; mlx5 plugs in through the same queue views). A session owns
 * two RC QPs connected to each other (A posts; B is the round-trip peer),
 * their CQs and, per side, a registered source buffer and inbox. The timed
 * loops run in C or CUDA; Java only prepares them and reads the samples.
 *
 * <pre>{@code
 * try (MiniGda g = MiniGda.open(GdaSetup.defaults(Target.CPU))) {
 *     GdaRun r = g.run(GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE, Payload.INLINE, 8));
 *     long p50 = r.stats().p50();
 * }
 * }</pre>
 */
public final class MiniGda implements AutoCloseable {
    /** MARROW_EPROTO: the runner's status when delivered bytes were wrong. */
    static final int EPROTO = -71;

    private final GdaSetup setup;
    private final SoftNic nic;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment epA;
    private final MemorySegment epB;
    private final MemorySegment inboxA;
    private final MemorySegment inboxB;
    private boolean closed;

    private MiniGda(GdaSetup setup, SoftNic nic) {
        this.setup = setup;
        this.nic = nic;
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
        this.inboxA = inA.memory();
        this.inboxB = inB.memory();
        this.epA = endpoint(a, cqA, srcA, inA, inB);
        this.epB = endpoint(b, cqB, srcB, inB, inA);
    }

    /**
     * Checks that the target and NIC can run here and builds the queues.
     *
     * @throws BackendUnavailableException when the GPU or the NIC is missing (the message says why)
     * @throws UnsupportedOperationException for queue placement gpu
     */
    public static MiniGda open(GdaSetup setup) {
        if (setup.placement() == Placement.GPU) {
            throw new UnsupportedOperationException("queue placement 'gpu' is not implemented: needs DevX umem "
                    + "(SQ/CQ/DBR in GPU memory registered with mlx5dv_devx_umem_reg); use --placement host");
        }
        if (setup.nic() == Nic.MLX5) {
            Backend.VERBS.ensureAvailability();
            throw new BackendUnavailableException("mini-gda on mlx5 hardware: the verbs QP (mlx5dv_init_obj) path "
                    + "is not wired into mini-gda in this build; use --nic softnic", null);
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
                .withEngineCpu(setup.engineCpu()).withQuiet(true));
        try {
            return new MiniGda(setup, nic);
        } catch (RuntimeException e) {
            nic.close();
            throw e;
        }
    }

    public GdaSetup setup() {
        return setup;
    }

    /** The software NIC behind the queues (e.g. to pause its engine in a test). */
    public SoftNic softNic() {
        return nic;
    }

    /** The 8-byte-aligned buffer where B's writes land (round-trip replies). */
    public MemorySegment inboxA() {
        return inboxA;
    }

    /** The buffer A writes into: after a run it holds the last iteration's payload. */
    public MemorySegment inboxB() {
        return inboxB;
    }

    /**
     * Runs one experiment. A run whose payload validation failed is returned
     * with {@link GdaRun#valid()} false; every other failure throws
     * {@link NativeException} with the native message (a timeout has
     * {@link NativeException#isTimeout()}).
     */
    public GdaRun run(GdaRunSpec spec) {
        if (closed) {
            throw new IllegalStateException("MiniGda is closed");
        }
        boolean cuda = setup.target() == Target.CUDA;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cfg = a.allocate(GdaLayouts.CONFIG);
            cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "size"), (int) GdaLayouts.CONFIG.byteSize());
            cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "experiment"), spec.experiment().code());
            cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "ordering"), spec.ordering().code());
            cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "payload"), spec.payload().code());
            cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "msg_size"), spec.size());
            cfg.set(JAVA_LONG, off(GdaLayouts.CONFIG, "iters"), spec.iters());
            cfg.set(JAVA_LONG, off(GdaLayouts.CONFIG, "warmup"), spec.warmup());
            cfg.set(JAVA_LONG, off(GdaLayouts.CONFIG, "timeout_ns"), spec.timeoutNs());
            cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "cuda_device"), setup.cudaDevice());
            MemorySegment res = a.allocate(GdaLayouts.RESULT);
            res.set(JAVA_INT, 0, (int) GdaLayouts.RESULT.byteSize());
            MemorySegment ns = a.allocate(JAVA_LONG, spec.iters());
            MemorySegment cyc = cuda ? a.allocate(JAVA_LONG, spec.iters()) : MemorySegment.NULL;
            MemorySegment peer = spec.experiment() == Experiment.ROUND_TRIP ? epB : MemorySegment.NULL;

            SoftNicCounters before = nic.counters();
            int rc;
            NativeLib lib;
            if (cuda) {
                lib = GdaFfi.Cuda.LIB;
                rc = (int) GdaFfi.Cuda.CUDA_RUN.invokeExact(cfg, epA, peer, ns, cyc, res);
            } else {
                lib = GdaFfi.Host.LIB;
                rc = (int) GdaFfi.Host.CPU_RUN.invokeExact(cfg, epA, peer, ns, res);
            }
            long payloadErrors = res.get(JAVA_LONG, off(GdaLayouts.RESULT, "payload_errors"));
            if (rc != 0 && !(rc == EPROTO && payloadErrors > 0)) { // wrong bytes: reported in the run, not thrown
                lib.check(rc, cuda ? "marrow_gda_cuda_run" : "marrow_gda_cpu_run");
            }
            Map<String, Long> emu = nic.counters().minus(before).values();
            return new GdaRun(setup, spec, ns.toArray(JAVA_LONG), cuda ? cyc.toArray(JAVA_LONG) : null,
                    res.get(JAVA_LONG, off(GdaLayouts.RESULT, "posts")),
                    res.get(JAVA_LONG, off(GdaLayouts.RESULT, "doorbells")),
                    res.get(JAVA_LONG, off(GdaLayouts.RESULT, "cqes")),
                    res.get(JAVA_LONG, off(GdaLayouts.RESULT, "peer_posts")),
                    payloadErrors,
                    res.get(JAVA_LONG, off(GdaLayouts.RESULT, "timed_ns")),
                    res.get(JAVA_LONG, off(GdaLayouts.RESULT, "timed_cycles")),
                    res.get(JAVA_INT, off(GdaLayouts.RESULT, "ds")),
                    res.get(JAVA_INT, off(GdaLayouts.RESULT, "wqebbs_per_wqe")), emu);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("mini-gda run failed: " + t, t);
        }
    }

    /** marrow_gda_endpoint of QP q writing into `to`, with views rebuilt from the softnic objects. */
    private MemorySegment endpoint(QueuePair q, CompletionQueue cq, MemoryRegion src, MemoryRegion inbox,
                                   MemoryRegion to) {
        StructLayout qv = EmuLayouts.QP_VIEW;
        MemorySegment qpView = arena.allocate(qv);
        qpView.set(JAVA_INT, off(qv, "size"), (int) qv.byteSize());
        qpView.set(JAVA_INT, off(qv, "qpn"), q.qpn());
        qpView.set(JAVA_INT, off(qv, "sq_wqe_cnt"), q.sqWqebbs());
        qpView.set(JAVA_INT, off(qv, "sq_stride"), 64);
        qpView.set(JAVA_INT, off(qv, "max_inline_data"), q.maxInlineData());
        qpView.set(ADDRESS, off(qv, "sq_buf"), q.sendQueue());
        qpView.set(ADDRESS, off(qv, "rq_buf"), MemorySegment.NULL);
        qpView.set(ADDRESS, off(qv, "dbrec"), q.dbrec());
        qpView.set(ADDRESS, off(qv, "uar"), q.uar());
        qpView.set(JAVA_LONG, off(qv, "uar_size"), q.uar().byteSize());

        StructLayout cv = EmuLayouts.CQ_VIEW;
        MemorySegment cqView = arena.allocate(cv);
        cqView.set(JAVA_INT, off(cv, "size"), (int) cv.byteSize());
        cqView.set(JAVA_INT, off(cv, "cqn"), cq.cqn());
        cqView.set(JAVA_INT, off(cv, "cqe_cnt"), cq.entries());
        cqView.set(JAVA_INT, off(cv, "cqe_size"), 64);
        cqView.set(JAVA_INT, off(cv, "flags"), cq.collapsed() ? 3 : 0); // collapsed CQs are made overrun-ignore too
        cqView.set(ADDRESS, off(cv, "buf"), cq.buffer());
        cqView.set(ADDRESS, off(cv, "dbrec"), cq.dbrec());

        StructLayout el = GdaLayouts.ENDPOINT;
        MemorySegment ep = arena.allocate(el);
        ep.set(JAVA_INT, off(el, "size"), (int) el.byteSize());
        ep.set(JAVA_INT, off(el, "placement"), setup.placement().code());
        ep.set(JAVA_INT, off(el, "lkey"), src.lkey());
        ep.set(ADDRESS, off(el, "qp"), qpView);
        ep.set(ADDRESS, off(el, "cq"), cqView);
        ep.set(JAVA_LONG, off(el, "local_addr"), src.address());
        ep.set(JAVA_LONG, off(el, "local_len"), src.memory().byteSize());
        ep.set(JAVA_LONG, off(el, "inbox_addr"), inbox.address());
        ep.set(JAVA_LONG, off(el, "remote_addr"), to.address());
        ep.set(JAVA_LONG, off(el, "remote_len"), to.memory().byteSize());
        ep.set(JAVA_INT, off(el, "rkey"), to.rkey());
        ep.set(JAVA_INT, off(el, "flags"), 0); // the softnic's UAR mailbox is host RAM
        return ep;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            nic.close();
        } finally {
            arena.close();
        }
    }
}
