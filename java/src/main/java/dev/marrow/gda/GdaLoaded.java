// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

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

    /** Probe samples and what the background carried while they were taken. */
    public record Run(Spec spec, long[] samplesNs, long timedNs, long bgInWindow, long bgPosted, long bgSlotErrors,
                      long probeErrors) {
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
        boolean cuda = g.setup().target() == Target.CUDA;
        SoftNic nic = g.softNic();
        try (Arena a = Arena.ofConfined()) {
            int n = spec.streams();
            MemoryRegion dst = nic.registerMemory(Arena.ofAuto().allocate(8L * LoadedFfi.SLOTS * Math.max(1, n), 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemorySegment bgEps = MemorySegment.NULL;
            if (spec.queue() == Queue.RESERVED && n > 0) {
                StructLayout el = GdaLayouts.ENDPOINT;
                bgEps = a.allocate(el.byteSize() * n, 8);
                for (int k = 0; k < n; k++) {
                    CompletionQueue cq = nic.createCompletionQueue(8, false, false);
                    QueuePair q = nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(8).withMaxInlineData(64));
                    q.connect(q); // loops back: the destination is on this NIC
                    MemorySegment ep = MiniGda.endpoint(a, Nic.SOFTNIC, Placement.HOST, MiniGda.qpView(a, q),
                            MiniGda.cqView(a, cq), new MiniGda.Buffers(0, 0, 0, 0, 0, 0, 0));
                    MemorySegment.copy(ep, 0, bgEps, el.byteSize() * k, el.byteSize());
                }
            }
            StructLayout cl = LoadedFfi.CONFIG;
            MemorySegment cfg = CStruct.allocate(a, cl);
            setInt(cfg, cl, "ordering", spec.ordering().code());
            setInt(cfg, cl, "queue", spec.queue() == Queue.SHARED ? LoadedFfi.SHARED : LoadedFfi.RESERVED);
            setInt(cfg, cl, "bg_streams", n);
            setInt(cfg, cl, "bg_window", spec.window());
            setInt(cfg, cl, "bg_signal_every", spec.signalEvery());
            setLong(cfg, cl, "pace_msgs_per_s", spec.paceMsgsPerS());
            setLong(cfg, cl, "iters", spec.iters());
            setLong(cfg, cl, "warmup", spec.warmup());
            setLong(cfg, cl, "timeout_ns", spec.timeoutNs());
            setLong(cfg, cl, "bg_dst_addr", dst.address());
            setLong(cfg, cl, "bg_dst_len", 8L * LoadedFfi.SLOTS * Math.max(1, n));
            setInt(cfg, cl, "bg_dst_rkey", dst.rkey());
            StructLayout rl = LoadedFfi.RESULT;
            MemorySegment res = CStruct.allocate(a, rl);
            MemorySegment ns = a.allocate(JAVA_LONG, spec.iters());
            setInt(cfg, cl, "cuda_device", g.setup().cudaDevice());
            int rc = cuda
                    ? (int) LoadedFfi.Cuda.CUDA_RUN.invokeExact(cfg, g.initiatorEndpoint(), g.peerEndpoint(), bgEps, ns, res)
                    : (int) LoadedFfi.CPU_RUN.invokeExact(cfg, g.initiatorEndpoint(), g.peerEndpoint(), bgEps, ns, res);
            long slotErrors = getLong(res, rl, "bg_slot_errors");
            long probeErrors = getLong(res, rl, "probe_errors");
            if (rc != 0 && slotErrors == 0 && probeErrors == 0) {
                (cuda ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB).check(rc,
                        cuda ? "marrow_gda_loaded_cuda_run" : "marrow_gda_loaded_cpu_run");
            }
            return new Run(spec, ns.toArray(JAVA_LONG), getLong(res, rl, "timed_ns"), getLong(res, rl, "bg_in_window"),
                    getLong(res, rl, "bg_posted"), slotErrors, probeErrors);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("mini-gda loaded run failed: " + t, t);
        }
    }
}
