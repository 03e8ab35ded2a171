// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Endpoints;
import dev.marrow.fabric.Fabric;
import dev.marrow.fabric.LoopbackQueues;
import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.api.MarrowException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.gda.internal.LoadedFfi;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.results.Stats;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * mini-gda round trip under load (marrow_gda_loaded.h): the probe is the
 * session's A -> B -> A round trip; background streams post 8-byte WRITEs
 * on A's QP (shared) or on QPs of their own (reserved; each looped back to
 * itself on the same software NIC). The timed loops run in C (CPU threads)
 * or CUDA (one-thread blocks: probe, peer, background CTAs); Java builds
 * the background queues and reads the result.
 */
public final class GdaLoaded {
    private GdaLoaded() {
    }

    /** Where the background posts: the probe's queue, or queues of its own. */
    public enum Queue {
        SHARED, RESERVED;

        public String label() {
            return name().toLowerCase();
        }
    }

    public record Spec(Ordering ordering, Queue queue, int streams, long paceMsgsPerS, int window, int signalEvery,
                       long iters, long warmup, long timeoutNs) {
        public Spec {
            if (streams < 0 || streams > LoadedFfi.MAX_STREAMS || window < 1 || signalEvery < 1 || signalEvery > window
                    || iters < 1 || warmup < 0 || timeoutNs <= 0 || paceMsgsPerS < 0) {
                throw new IllegalArgumentException("loaded: streams 0.." + LoadedFfi.MAX_STREAMS + ", window >= 1, "
                        + "1 <= signal-every <= window, iters >= 1, warmup >= 0, pace >= 0, timeout > 0");
            }
        }
    }

    /**
     * Which software-NIC engine threads serve the background QPs of a reserved run
     * (docs/design/methods.md, "Loaded round trip"): DEDICATED keeps the probe's engine thread
     * (thread 0, serving the probe's QP A and the answering QP B) free of background QPs, which
     * spread over threads 1 .. T-1; SHARED spreads them over all T threads, the probe's included.
     * With a shared queue the background posts on the probe's own QP, so it shares the probe's
     * engine thread by construction whatever is asked.
     */
    public enum ProbeEngine {
        DEDICATED, SHARED;

        public String label() {
            return name().toLowerCase();
        }

        /** Engine thread of background QP k among engineThreads; thread 0 is the probe's. */
        int threadOf(int k, int engineThreads) {
            return this == DEDICATED ? 1 + k % (engineThreads - 1) : k % engineThreads;
        }
    }

    /**
     * Engine threads serving each QP of one run, as the software NIC reported them after
     * placement (marrow_emu_qp_engine), not as asked.
     *
     * @param sharedQueue        the background posted on the probe's QP (queue SHARED with streams > 0)
     * @param backgroundThreads  thread of each background QP (empty with a shared queue)
     */
    public record EnginePlacement(int engineThreads, int probeThread, int peerThread, int[] backgroundThreads,
                                  boolean sharedQueue) {
        /** No background WQE is executed by an engine thread that serves the probe's QPs. */
        public boolean probeEngineAlone() {
            if (sharedQueue) {
                return false;
            }
            for (int t : backgroundThreads) {
                if (t == probeThread || t == peerThread) {
                    return false;
                }
            }
            return true;
        }

        /** Distinct engine threads serving background QPs (the probe's own thread with a shared queue). */
        public int backgroundEngineThreads() {
            if (sharedQueue) {
                return 1;
            }
            return (int) java.util.Arrays.stream(backgroundThreads).distinct().count();
        }

        /** The most background QPs one engine thread serves. */
        public int maxBackgroundQpsPerThread() {
            int[] per = new int[engineThreads];
            int most = 0;
            for (int t : backgroundThreads) {
                most = Math.max(most, ++per[t]);
            }
            return most;
        }
    }

    /**
     * Probe samples and what the background carried while they were taken; placement: the
     * engine threads of the run's QPs (one process, or this side of two).
     */
    public record Run(Spec spec, long[] samplesNs, long timedNs, long bgInWindow, long bgPosted, long bgSlotErrors,
                      long probeErrors, EnginePlacement placement) {
        public Run(Spec spec, long[] samplesNs, long timedNs, long bgInWindow, long bgPosted, long bgSlotErrors,
                   long probeErrors) {
            this(spec, samplesNs, timedNs, bgInWindow, bgPosted, bgSlotErrors, probeErrors, null);
        }

        public Stats stats() {
            return Stats.of(samplesNs);
        }

        /** Background WRITEs posted per second inside the probe's timed span, in M msg/s. */
        public double bgRateMmsgPerS() {
            return timedNs == 0 ? 0 : bgInWindow * 1e3 / timedNs;
        }

        public boolean valid() {
            return bgSlotErrors == 0 && probeErrors == 0;
        }
    }

    public static Run run(MiniGda g, Spec spec) {
        return run(g, spec, ProbeEngine.SHARED);
    }

    /**
     * One process: the probe's QPs go to engine thread 0, background QP k to
     * {@link ProbeEngine#threadOf}; the run carries the placement the software NIC reports.
     * DEDICATED needs at least two engine threads.
     */
    public static Run run(MiniGda g, Spec spec, ProbeEngine probeEngine) {
        boolean cuda = g.setup().target() == Target.CUDA;
        SoftNic nic = g.cpuEngineNic();
        if (nic == null && g.peerEndpoint() != null) {
            return runOnFabric(g, spec, cuda);
        }
        java.util.List<QueuePair> probeQps = g.probeQueuePairs();
        if (probeQps == null) {
            throw new IllegalStateException("loaded: engine placement needs a one-process software-NIC session");
        }
        int threads = g.setup().engineThreads();
        if (probeEngine == ProbeEngine.DEDICATED && threads < 2) {
            throw new IllegalArgumentException("--probe-engine dedicated needs --engine-threads >= 2 (thread 0 "
                    + "serves the probe, the others the background), not " + threads);
        }
        for (QueuePair q : probeQps) {
            q.setEngineThread(0);
        }
        MemoryRegion dst = nic.registerMemory(Arena.ofAuto().allocate(8L * LoadedFfi.SLOTS * Math.max(1, spec.streams()),
                4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        int[] bgThreads = new int[spec.queue() == Queue.RESERVED ? spec.streams() : 0];
        Run r = run(nic, cuda, g.setup().cudaDevice(), LoadedFfi.ROLE_BOTH, g.initiatorEndpoint(), g.peerEndpoint(),
                (q, k) -> {
                    q.setEngineThread(probeEngine.threadOf(k, threads));
                    bgThreads[k] = q.engineThread(); // what the NIC says, not what was asked
                    q.connect(q);
                }, dst.address(), dst.rkey(), spec, null);
        EnginePlacement p = new EnginePlacement(threads, probeQps.get(0).engineThread(), probeQps.get(1).engineThread(),
                bgThreads, spec.queue() == Queue.SHARED && spec.streams() > 0);
        return new Run(r.spec(), r.samplesNs(), r.timedNs(), r.bgInWindow(), r.bgPosted(), r.bgSlotErrors(),
                r.probeErrors(), p);
    }

    /**
     * One process on a NIC without engine threads (mlx5): the probe pair is the session's, the
     * reserved background QPs are loopback QPs of its fabric writing into their own destination
     * buffer; there is no engine placement to report (every engine field of the run is -1 / empty).
     */
    private static Run runOnFabric(MiniGda g, Spec spec, boolean cuda) {
        int n = spec.streams();
        LoopbackQueues bg = g.fabric().loopback(Math.max(1, n), new Fabric.QueueShape(8, 8, 64),
                LoopbackQueues.Buffers.shared(bgBytes(n)));
        MemorySegment bgEps = spec.queue() == Queue.RESERVED && n > 0 ? bg.endpoints() : MemorySegment.NULL;
        Run r = runNative(cuda, g.setup().cudaDevice(), LoadedFfi.ROLE_BOTH, g.initiatorEndpoint(), g.peerEndpoint(),
                bgEps, bg.destination().address(), bg.rkey(), spec, null);
        EnginePlacement p = new EnginePlacement(0, -1, -1, new int[0], spec.queue() == Queue.SHARED && n > 0);
        return new Run(r.spec(), r.samplesNs(), r.timedNs(), r.bgInWindow(), r.bgPosted(), r.bgSlotErrors(),
                r.probeErrors(), p);
    }

    /**
     * Where a background region starts in an inbox of two processes: the
     * probe's word at offset 0, stream k's 64 slots of 8 bytes from here on
     * (docs/design/two-process.md §11).
     */
    public static final long BG_OFFSET = 4096;

    /** The inbox bytes two processes need for n background streams. */
    public static long inboxBytes(int streams) {
        return BG_OFFSET + bgBytes(streams);
    }

    static long bgBytes(int streams) {
        return 8L * LoadedFfi.SLOTS * Math.max(1, streams);
    }

    /**
     * One side of a two-process loaded run: the initiator (probe +
     * background; CPU runner, or the GPU runner when cuda) or the responder
     * (answers + background; CPU runner only). ep is
     * this side's session endpoint (its destination the other process's
     * inbox); reserved background QPs are connected by connect (to the
     * other process's exported QP over the wire); the background lands at
     * remoteInbox + {@link #BG_OFFSET} with the other side's rkey.
     * postedOut receives each stream's count (all completed) for the
     * other side's check. Engine placement as in one process, on this
     * side's NIC of engineThreads threads: the session QP (the probe's, or
     * the answering QP) on thread 0, background QP k on
     * {@link ProbeEngine#threadOf}; the run carries what the NIC reports.
     */
    public static Run runSide(SoftNic nic, boolean responder, boolean cuda, int cudaDevice, MemorySegment ep,
                              QueuePair sessionQp, int engineThreads, ProbeEngine probeEngine,
                              java.util.function.Consumer<QueuePair> connect, long remoteInbox, int remoteRkey,
                              Spec spec, long[] postedOut) {
        if (responder && cuda) {
            throw new IllegalArgumentException("the responder of a two-process loaded run answers on the CPU runner");
        }
        if (probeEngine == ProbeEngine.DEDICATED && engineThreads < 2) {
            throw new IllegalArgumentException("--probe-engine dedicated needs --engine-threads >= 2 (thread 0 "
                    + "serves the " + (responder ? "answering" : "probe's") + " QP, the others the background), not "
                    + engineThreads);
        }
        sessionQp.setEngineThread(0);
        int[] bgThreads = new int[spec.queue() == Queue.RESERVED ? spec.streams() : 0];
        Run r = run(nic, cuda, cudaDevice, responder ? LoadedFfi.ROLE_RESPONDER : LoadedFfi.ROLE_INITIATOR, ep,
                MemorySegment.NULL, (q, k) -> {
                    q.setEngineThread(probeEngine.threadOf(k, engineThreads)); // before the wire link: QP in INIT
                    bgThreads[k] = q.engineThread(); // what the NIC says, not what was asked
                    connect.accept(q);
                }, remoteInbox + BG_OFFSET, remoteRkey, spec, postedOut);
        int own = sessionQp.engineThread();
        EnginePlacement p = new EnginePlacement(engineThreads, own, own, bgThreads,
                spec.queue() == Queue.SHARED && spec.streams() > 0);
        return new Run(r.spec(), r.samplesNs(), r.timedNs(), r.bgInWindow(), r.bgPosted(), r.bgSlotErrors(),
                r.probeErrors(), p);
    }

    /**
     * The receiver's check of a background region it owns after the
     * sender's streams completed: slots that do not hold the last value
     * their stream sent (marrow_gda_loaded_check_slots).
     */
    public static long checkSlots(MemorySegment inbox, long[] posted) {
        if (posted.length == 0) {
            return 0;
        }
        if (inbox.byteSize() < inboxBytes(posted.length)) {
            throw new IllegalArgumentException("inbox of " + inbox.byteSize() + " bytes holds no background region of "
                    + posted.length + " streams");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocateFrom(JAVA_LONG, posted);
            return (long) LoadedFfi.CHECK_SLOTS.invokeExact(inbox.address() + BG_OFFSET, posted.length, p);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_gda_loaded_check_slots failed: " + t, t);
        }
    }

    private static Run run(SoftNic nic, boolean cuda, int cudaDevice, int role, MemorySegment probeEp,
                           MemorySegment peerEp, java.util.function.ObjIntConsumer<QueuePair> connect, long dstAddr,
                           int dstRkey, Spec spec, long[] postedOut) {
        try (Arena a = Arena.ofConfined()) {
            int n = spec.streams();
            MemorySegment bgEps = MemorySegment.NULL;
            if (spec.queue() == Queue.RESERVED && n > 0) {
                StructLayout el = GdaLayouts.ENDPOINT;
                bgEps = a.allocate(el.byteSize() * n, 8);
                for (int k = 0; k < n; k++) {
                    CompletionQueue cq = nic.createCompletionQueue(8, false, false);
                    QueuePair q = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(8).withMaxInlineData(64));
                    connect.accept(q, k); // one process: loops back; two: to the other process's QP over the wire
                    MemorySegment ep = Endpoints.endpoint(a, Nic.SOFTNIC, Placement.HOST, Endpoints.qpView(a, q),
                            Endpoints.cqView(a, cq), new Endpoints.Buffers(0, 0, 0, 0, 0, 0, 0));
                    MemorySegment.copy(ep, 0, bgEps, el.byteSize() * k, el.byteSize());
                }
            }
            return runNative(cuda, cudaDevice, role, probeEp, peerEp, bgEps, dstAddr, dstRkey, spec, postedOut);
        }
    }

    /** One run of the loaded runner over the probe's endpoints and the background's (NULL: shared queue). */
    private static Run runNative(boolean cuda, int cudaDevice, int role, MemorySegment probeEp, MemorySegment peerEp,
                                 MemorySegment bgEps, long dstAddr, int dstRkey, Spec spec, long[] postedOut) {
        try (Arena a = Arena.ofConfined()) {
            int n = spec.streams();
            MemorySegment posted = n > 0 ? a.allocate(JAVA_LONG, n) : MemorySegment.NULL;
            StructLayout cl = LoadedFfi.CONFIG;
            MemorySegment cfg = CStruct.allocate(a, cl);
            setInt(cfg, cl, "ordering", spec.ordering().code());
            setInt(cfg, cl, "queue", spec.queue() == Queue.SHARED ? LoadedFfi.SHARED : LoadedFfi.RESERVED);
            setInt(cfg, cl, "role", role);
            setInt(cfg, cl, "bg_streams", n);
            setInt(cfg, cl, "bg_window", spec.window());
            setInt(cfg, cl, "bg_signal_every", spec.signalEvery());
            setLong(cfg, cl, "pace_msgs_per_s", spec.paceMsgsPerS());
            setLong(cfg, cl, "iters", spec.iters());
            setLong(cfg, cl, "warmup", spec.warmup());
            setLong(cfg, cl, "timeout_ns", spec.timeoutNs());
            setLong(cfg, cl, "bg_dst_addr", dstAddr);
            setLong(cfg, cl, "bg_dst_len", bgBytes(n));
            setInt(cfg, cl, "bg_dst_rkey", dstRkey);
            setLong(cfg, cl, "bg_posted_addr", posted.address());
            StructLayout rl = LoadedFfi.RESULT;
            MemorySegment res = CStruct.allocate(a, rl);
            MemorySegment ns = a.allocate(JAVA_LONG, spec.iters());
            setInt(cfg, cl, "cuda_device", cudaDevice);
            int rc = cuda
                    ? (int) LoadedFfi.Cuda.CUDA_RUN.invokeExact(cfg, probeEp, peerEp, bgEps, ns, res)
                    : (int) LoadedFfi.CPU_RUN.invokeExact(cfg, probeEp, peerEp, bgEps, ns, res);
            if (postedOut != null && n > 0) {
                MemorySegment.copy(posted, JAVA_LONG, 0, postedOut, 0, Math.min(n, postedOut.length));
            }
            long slotErrors = getLong(res, rl, "bg_slot_errors");
            long probeErrors = getLong(res, rl, "probe_errors");
            if (rc != 0 && slotErrors == 0 && probeErrors == 0) {
                (cuda ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB).check(rc,
                        cuda ? "marrow_gda_loaded_cuda_run" : "marrow_gda_loaded_cpu_run");
            }
            long[] samples = role == LoadedFfi.ROLE_RESPONDER ? new long[0] : ns.toArray(JAVA_LONG);
            return new Run(spec, samples, getLong(res, rl, "timed_ns"), getLong(res, rl, "bg_in_window"),
                    getLong(res, rl, "bg_posted"), slotErrors, probeErrors);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("mini-gda loaded run failed: " + t, t);
        }
    }
}
