// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Endpoints;
import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static dev.marrow.gda.internal.GdaLayouts.off;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The two-host code path of mini-gda (MARROW_GDA_EP_REMOTE_DST and the
 * peer role alone, marrow_gda_*_serve) on a real GPU without an RDMA NIC:
 * one software NIC device, two RC QPs A and B connected to each other, and
 * two Java threads standing in for the two hosts (the GPU twin of
 * native/tests/test_gda_remote.c). A is the initiator, flagged REMOTE_DST
 * and given no local peer; B answers the pings with the serve entry point.
 * The GPU plays either role: marrow_gda_cuda_serve behind a CPU initiator,
 * and marrow_gda_cuda_run (REMOTE_DST round trip) in front of
 * marrow_gda_cpu_serve. Every native wait is bounded by timeout_ns and every
 * case by assertTimeoutPreemptively.
 */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class GdaServeGpuTest {
    static final long ITERS = 200;
    static final long WARMUP = 20;
    static final long TOTAL = ITERS + WARMUP;
    /** Per-wait bound of the runs that must succeed: generous, the first GPU launch maps memory. */
    static final long RUN_TIMEOUT_NS = 5_000_000_000L;
    static final Ordering[] SAFE = {Ordering.GPU_FENCE, Ordering.FENCE_SYS};
    static final int ETIMEDOUT = -110;

    @BeforeAll
    static void cudaContextBeforeAnyBoundedWait() throws Throwable {
        // The context now, not inside the initiator's first bounded wait for a reply.
        GdaFfi.Cuda.LIB.check((int) GdaFfi.Cuda.CUDA_PREPARE.invokeExact(0), "marrow_gda_cuda_prepare");
    }

    /** One software NIC, QPs A and B connected to each other, and per side a source buffer and an inbox. */
    static final class Rig implements AutoCloseable {
        final SoftNic nic;
        final Arena arena = Arena.ofShared();
        final MemorySegment epA;
        final MemorySegment epB;
        final MemorySegment inboxA;
        final MemorySegment inboxB;

        Rig(boolean remoteDstA, boolean remoteDstB) {
            GdaSetup s = GdaSetup.defaults(Target.CUDA);
            nic = SoftNic.open(SoftNic.Options.defaults().withPollMode(s.pollMode()).withQuiet(true));
            try {
                CompletionQueue cqA = nic.createCompletionQueue(s.logCq(), false, false);
                CompletionQueue cqB = nic.createCompletionQueue(s.logCq(), false, false);
                QueuePair a = nic.createQueuePair(QueuePair.Config.of(cqA).withLogSqWqebbs(s.logSq())
                        .withMaxInlineData(s.maxInline()));
                QueuePair b = nic.createQueuePair(QueuePair.Config.of(cqB).withLogSqWqebbs(s.logSq())
                        .withMaxInlineData(s.maxInline()));
                a.connect(b);
                b.connect(a);
                long n = s.bufferBytes();
                MemoryRegion srcA = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE);
                MemoryRegion srcB = nic.registerMemory(arena.allocate(n, 4096), Access.LOCAL_WRITE);
                MemoryRegion inA = nic.registerMemory(arena.allocate(n, 4096),
                        Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                MemoryRegion inB = nic.registerMemory(arena.allocate(n, 4096),
                        Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                epA = Endpoints.endpoint(arena, Nic.SOFTNIC, Placement.HOST, Endpoints.qpView(arena, a),
                        Endpoints.cqView(arena, cqA), new Endpoints.Buffers(srcA.address(), n, srcA.lkey(),
                                inA.address(), inB.address(), n, inB.rkey()), remoteDstA);
                epB = Endpoints.endpoint(arena, Nic.SOFTNIC, Placement.HOST, Endpoints.qpView(arena, b),
                        Endpoints.cqView(arena, cqB), new Endpoints.Buffers(srcB.address(), n, srcB.lkey(),
                                inB.address(), inA.address(), n, inA.rkey()), remoteDstB);
                inboxA = inA.memory();
                inboxB = inB.memory();
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                nic.close();
            } finally {
                arena.close();
            }
        }
    }

    /** What one native call returned; msg is the library's last error (marrow_<library>_last_error) of the calling thread when rc != 0. */
    record Res(int rc, String msg, long itersDone, long posts, long doorbells, long cqes, long peerPosts,
               long payloadErrors, int status, int failIter, long[] samplesNs) {
        static Res read(int rc, NativeLib lib, MemorySegment r, long[] samples) {
            return new Res(rc, rc == 0 ? "" : lib.lastError(),
                    r.get(JAVA_LONG, off(GdaLayouts.RESULT, "iters_done")),
                    r.get(JAVA_LONG, off(GdaLayouts.RESULT, "posts")),
                    r.get(JAVA_LONG, off(GdaLayouts.RESULT, "doorbells")),
                    r.get(JAVA_LONG, off(GdaLayouts.RESULT, "cqes")),
                    r.get(JAVA_LONG, off(GdaLayouts.RESULT, "peer_posts")),
                    r.get(JAVA_LONG, off(GdaLayouts.RESULT, "payload_errors")),
                    r.get(JAVA_INT, off(GdaLayouts.RESULT, "status")),
                    r.get(JAVA_INT, off(GdaLayouts.RESULT, "fail_iter")), samples);
        }
    }

    static MemorySegment config(Arena a, Experiment e, Ordering o, Payload p, int size, long iters, long warmup,
                                long timeoutNs) {
        MemorySegment cfg = a.allocate(GdaLayouts.CONFIG);
        cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "size"), (int) GdaLayouts.CONFIG.byteSize());
        cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "experiment"), e.code());
        cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "ordering"), o.code());
        cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "payload"), p.code());
        cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "msg_size"), size);
        cfg.set(JAVA_LONG, off(GdaLayouts.CONFIG, "iters"), iters);
        cfg.set(JAVA_LONG, off(GdaLayouts.CONFIG, "warmup"), warmup);
        cfg.set(JAVA_LONG, off(GdaLayouts.CONFIG, "timeout_ns"), timeoutNs);
        cfg.set(JAVA_INT, off(GdaLayouts.CONFIG, "cuda_device"), 0);
        return cfg;
    }

    static MemorySegment result(Arena a) {
        MemorySegment r = a.allocate(GdaLayouts.RESULT);
        r.set(JAVA_INT, off(GdaLayouts.RESULT, "size"), (int) GdaLayouts.RESULT.byteSize());
        return r;
    }

    /** The initiator (peer NULL: it is "on the other host"), on the CPU or the GPU. */
    static Res run(boolean gpu, MemorySegment ep, Experiment e, Ordering o, Payload p, int size, long iters,
                   long warmup) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cfg = config(a, e, o, p, size, iters, warmup, RUN_TIMEOUT_NS);
            MemorySegment res = result(a);
            MemorySegment ns = a.allocate(JAVA_LONG, iters);
            int rc;
            if (gpu) {
                rc = (int) GdaFfi.Cuda.CUDA_RUN.invokeExact(cfg, ep, MemorySegment.NULL, ns,
                        a.allocate(JAVA_LONG, iters), res);
            } else {
                rc = (int) GdaFfi.Host.CPU_RUN.invokeExact(cfg, ep, MemorySegment.NULL, ns, res);
            }
            return Res.read(rc, gpu ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB, res, ns.toArray(JAVA_LONG));
        }
    }

    /** The round trip's peer role alone (marrow_gda_cuda_serve / marrow_gda_cpu_serve). */
    static Res serve(boolean gpu, MemorySegment ep, Ordering o, Payload p, long iters, long warmup,
                     long timeoutNs) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cfg = config(a, Experiment.ROUND_TRIP, o, p, 8, iters, warmup, timeoutNs);
            MemorySegment res = result(a);
            int rc = gpu ? (int) GdaFfi.Cuda.CUDA_SERVE.invokeExact(cfg, ep, res)
                    : (int) GdaFfi.Host.CPU_SERVE.invokeExact(cfg, ep, res);
            return Res.read(rc, gpu ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB, res, new long[0]);
        }
    }

    /** A native call through a downcall handle (invokeExact throws Throwable). */
    interface NativeCall<T> {
        T call() throws Throwable;
    }

    /** A daemon thread standing in for one host: a native call stuck past its bound cannot hold the JVM. */
    static <T> FutureTask<T> host(String name, NativeCall<T> body) {
        FutureTask<T> f = new FutureTask<>(() -> {
            try {
                return body.call();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new RuntimeException(t);
            }
        });
        Thread t = new Thread(f, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * The round trip across the two "hosts": B serves first (the iteration
     * count travels to the responder before the run), then A initiates;
     * both are awaited with a bound.
     */
    static void roundTrip(boolean gpuInitiator, boolean gpuServer, Ordering o, Payload p) throws Exception {
        String what = (gpuInitiator ? "GPU" : "CPU") + " initiator, " + (gpuServer ? "GPU" : "CPU") + " serve, "
                + o.label() + " " + p;
        try (Rig rig = new Rig(true, true)) {
            SoftNicCounters before = rig.nic.counters();
            FutureTask<Res> server = host("responder (host B)",
                    () -> serve(gpuServer, rig.epB, o, p, ITERS, WARMUP, RUN_TIMEOUT_NS));
            FutureTask<Res> initiator = host("initiator (host A)",
                    () -> run(gpuInitiator, rig.epA, Experiment.ROUND_TRIP, o, p, 8, ITERS, WARMUP));
            Res in = initiator.get(60, TimeUnit.SECONDS);
            Res sv = server.get(60, TimeUnit.SECONDS);
            SoftNicCounters d = rig.nic.counters().minus(before);

            assertEquals(0, in.rc(), what + ": initiator: " + in.msg());
            assertEquals(0, sv.rc(), what + ": responder: " + sv.msg());
            assertEquals(0, in.status(), what);
            assertEquals(0, sv.status(), what);
            // the initiator: every ping posted, signaled and answered; no local peer, no local payload check
            assertEquals(TOTAL, in.itersDone(), what + ": initiator iterations");
            assertEquals(TOTAL, in.posts(), what + ": initiator posts");
            assertEquals(TOTAL, in.doorbells(), what + ": initiator doorbells");
            assertEquals(TOTAL, in.cqes(), what + ": initiator CQEs");
            assertEquals(0, in.peerPosts(), what + ": no local peer");
            assertEquals(0, in.payloadErrors(), what + ": the destination is left to its owner");
            assertEquals(ITERS, in.samplesNs().length);
            for (int i = 0; i < ITERS; i++) {
                long v = in.samplesNs()[i];
                assertTrue(v > 0 && v < RUN_TIMEOUT_NS, what + ": sample " + i + " = " + v);
            }
            // the responder: one reply (post, doorbell, CQE) per ping
            assertEquals(TOTAL, sv.itersDone(), what + ": pings answered");
            assertEquals(TOTAL, sv.peerPosts(), what + ": replies posted");
            assertEquals(TOTAL, sv.posts(), what + ": responder posts");
            assertEquals(TOTAL, sv.cqes(), what + ": responder CQEs");
            // the bytes: the final ping in B's inbox (the responder's check), the final reply in A's
            assertTrue(GdaPattern.holds(rig.inboxB, 8, TOTAL - 1), what + ": B's inbox holds the last ping");
            assertTrue(GdaPattern.holds(rig.inboxA, 8, TOTAL - 1), what + ": A's inbox holds the last reply");
            // the engine: 2 * TOTAL WRITEs, each with a good CQE, the payload bytes by the chosen path
            long writes = 2 * TOTAL;
            assertEquals(writes, d.get("emu_wqe_rdma_write"), what + ": WRITEs executed");
            assertEquals(writes, d.get("emu_cqe_req"), what + ": CQEs written");
            assertEquals(0L, d.get("emu_cqe_req_err"), what + ": no error CQE");
            assertEquals(p == Payload.INLINE ? writes * 8 : 0L, d.get("emu_inline_bytes"), what);
            assertEquals(p == Payload.POINTER ? writes * 8 : 0L, d.get("emu_gather_bytes"), what);
            System.out.printf("%s: ok, initiator p50 %d ns%n", what, median(in.samplesNs()));
        }
    }

    static long median(long[] v) {
        long[] c = v.clone();
        java.util.Arrays.sort(c);
        return c[c.length / 2];
    }

    @Test
    void cpuInitiatorWithRemoteDstAgainstTheGpuServe() {
        assertTimeoutPreemptively(Duration.ofSeconds(180), () -> {
            for (Ordering o : SAFE) {
                for (Payload p : Payload.values()) {
                    roundTrip(false, true, o, p);
                }
            }
        });
    }

    @Test
    void gpuInitiatorWithRemoteDstAgainstTheCpuServe() {
        assertTimeoutPreemptively(Duration.ofSeconds(180), () -> {
            for (Ordering o : SAFE) {
                for (Payload p : Payload.values()) {
                    roundTrip(true, false, o, p);
                }
            }
        });
    }

    /** A GPU responder whose initiator never pings ends in the bounded timeout, naming ping 0. */
    @Test
    void aGpuServeWithoutPingsTimesOut() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (Rig rig = new Rig(true, true)) {
                long t0 = System.nanoTime();
                Res sv = serve(true, rig.epB, Ordering.GPU_FENCE, Payload.INLINE, 10, 0, 200_000_000L);
                long tookMs = (System.nanoTime() - t0) / 1_000_000;
                assertEquals(ETIMEDOUT, sv.rc(), sv.msg());
                assertEquals(ETIMEDOUT, sv.status(), sv.msg());
                assertEquals(0, sv.failIter(), sv.msg());
                assertEquals(0, sv.itersDone());
                assertEquals(0, sv.peerPosts());
                assertTrue(sv.msg().contains("ping from the initiator") && sv.msg().contains("iteration 0")
                        && sv.msg().contains("serving the remote initiator"), sv.msg());
                assertTrue(tookMs < 10_000, "returned after " + tookMs + " ms");
                assertEquals(0L, rig.nic.counters().get("emu_wqe_rdma_write"), "nothing was posted");
            }
        });
    }

    /** The CPU initiator stops after 3 of the 10 pings the GPU responder was told: its 4th wait expires. */
    @Test
    void aGpuServeWhoseInitiatorStopsEarlyTimesOut() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (Rig rig = new Rig(true, true)) {
                FutureTask<Res> server = host("responder (host B)",
                        () -> serve(true, rig.epB, Ordering.FENCE_SYS, Payload.INLINE, 10, 0, 300_000_000L));
                FutureTask<Res> initiator = host("initiator (host A)",
                        () -> run(false, rig.epA, Experiment.ROUND_TRIP, Ordering.FENCE_SYS, Payload.INLINE, 8, 3, 0));
                Res in = initiator.get(30, TimeUnit.SECONDS);
                Res sv = server.get(30, TimeUnit.SECONDS);
                assertEquals(0, in.rc(), "initiator: " + in.msg());
                assertEquals(3, in.cqes());
                assertEquals(ETIMEDOUT, sv.rc(), "responder: " + sv.msg());
                assertEquals(3, sv.failIter(), sv.msg());
                assertEquals(3, sv.peerPosts(), sv.msg());
                assertEquals(3, sv.itersDone(), sv.msg());
            }
        });
    }

    /**
     * Issue and put+completion on the GPU with a remote destination: no
     * responder is needed, the runner never maps or reads the destination
     * (payload_errors stays 0 by the API's contract), and the destination's
     * owner finds the last iteration's bytes there.
     */
    @Test
    void gpuIssueAndPutCompletionWithRemoteDstLeaveTheDestinationToItsOwner() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            for (Experiment e : new Experiment[] {Experiment.ISSUE, Experiment.PUT_COMPLETION}) {
                for (Payload p : Payload.values()) {
                    String what = e + " " + p;
                    try (Rig rig = new Rig(true, false)) {
                        SoftNicCounters before = rig.nic.counters();
                        Res r = run(true, rig.epA, e, Ordering.GPU_FENCE, p, 28, 50, 5);
                        SoftNicCounters d = rig.nic.counters().minus(before);
                        assertEquals(0, r.rc(), what + ": " + r.msg());
                        assertEquals(55, r.itersDone(), what);
                        assertEquals(55, r.posts(), what);
                        assertEquals(55, r.doorbells(), what);
                        assertEquals(55, r.cqes(), what);
                        assertEquals(0, r.peerPosts(), what);
                        assertEquals(0, r.payloadErrors(), what + ": no local check, no errors");
                        for (long v : r.samplesNs()) {
                            assertTrue(v > 0 && v < RUN_TIMEOUT_NS, what + ": sample " + v);
                        }
                        assertTrue(GdaPattern.holds(rig.inboxB, 28, 54), what + ": the owner finds the last bytes");
                        assertEquals(55L, d.get("emu_wqe_rdma_write"), what);
                        assertEquals(0L, d.get("emu_cqe_req_err"), what);
                    }
                }
            }
        });
    }
}
