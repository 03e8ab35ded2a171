// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Target;
import dev.marrow.api.MarrowException;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GoodputFfi;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Map;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;

/**
 * mini-gda pipelined goodput (marrow_gda_goodput.h): one poster thread, a
 * window of pointer WRITEs per QP, every {@code signalEvery}-th WQE of a QP
 * signaled, messages spread round robin over one or more QPs.
 * The timed loop runs in C or CUDA; Java prepares it and reads the result.
 * Runs on the initiator QP of a {@link MiniGda} session (A writes into B's
 * inbox, whose size bounds the slots) or on the QPs of {@link GoodputQueues}.
 */
public final class GdaGoodput {
    private GdaGoodput() {
    }

    /** One point: ordering, bytes per WRITE, window and signaling period PER QP, counts over all QPs. */
    public record Spec(Ordering ordering, int size, int window, int signalEvery, long messages, long warmup,
                       long timeoutNs) {
        public Spec {
            if (size < 1 || window < 1 || signalEvery < 1 || signalEvery > window || messages < 1 || warmup < 0
                    || timeoutNs <= 0) {
                throw new IllegalArgumentException("goodput: size, window, messages >= 1; 1 <= signal-every <= "
                        + "window; warmup >= 0; timeout > 0");
            }
        }
    }

    /** What one run measured; {@link #gbPerS()} is payload bytes per nanosecond. */
    public record Run(Spec spec, long timedBytes, long timedNs, long doorbells, long cqes, long payloadErrors,
                      int slots, Map<String, Long> emuCounters) {
        public double gbPerS() {
            return timedNs == 0 ? 0 : (double) timedBytes / timedNs;
        }

        public double messagesPerS() {
            return timedNs == 0 ? 0 : spec.messages() * 1e9 / timedNs;
        }

        public boolean valid() {
            return payloadErrors == 0;
        }
    }

    /**
     * A total window spread over {@code qps} QPs: each QP gets window / qps
     * WQEs outstanding (at least one), and signals every min(signalEvery,
     * that)-th of them. {@code [windowPerQp, signalEveryPerQp]}.
     */
    public static int[] perQp(int window, int signalEvery, int qps) {
        if (window < qps) {
            throw new IllegalArgumentException("--window " + window + " is spread over --qps " + qps
                    + ": it must be >= the QP count (one WQE outstanding per QP at least)");
        }
        int w = window / qps;
        return new int[] {w, Math.min(signalEvery, w)};
    }

    /** On the initiator QP of a mini-gda session. */
    public static Run run(MiniGda g, Spec spec) {
        return run(g.setup().target(), g.setup().cudaDevice(), g.cpuEngineNic(), g.initiatorEndpoint(), 1, spec);
    }

    /** Round robin over every QP of {@code q}; spec's window and signaling period are per QP. */
    public static Run run(GoodputQueues q, Spec spec) {
        return run(q.target(), q.cudaDevice(), q.softNic(), q.endpoints(), q.qps(), spec);
    }

    private static Run run(Target target, int cudaDevice, dev.marrow.api.softnic.SoftNic nic, MemorySegment eps,
                           int qps, Spec spec) {
        boolean cuda = target == Target.CUDA;
        StructLayout cl = GoodputFfi.CONFIG;
        StructLayout rl = GoodputFfi.RESULT;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cfg = CStruct.allocate(a, cl);
            setInt(cfg, cl, "ordering", spec.ordering().code());
            setInt(cfg, cl, "msg_size", spec.size());
            setInt(cfg, cl, "window", spec.window());
            setInt(cfg, cl, "signal_every", spec.signalEvery());
            setLong(cfg, cl, "messages", spec.messages());
            setLong(cfg, cl, "warmup", spec.warmup());
            setLong(cfg, cl, "timeout_ns", spec.timeoutNs());
            setInt(cfg, cl, "cuda_device", cudaDevice);
            setInt(cfg, cl, "qps", qps);
            MemorySegment res = CStruct.allocate(a, rl);
            SoftNicCounters before = nic == null ? null : nic.counters(); // a real NIC counts nothing here
            int rc;
            NativeLib lib;
            if (cuda) {
                lib = GdaFfi.Cuda.LIB;
                rc = (int) GoodputFfi.Cuda.CUDA_RUN.invokeExact(cfg, eps, res);
            } else {
                lib = GdaFfi.Host.LIB;
                rc = (int) GoodputFfi.CPU_RUN.invokeExact(cfg, eps, res);
            }
            long errors = getLong(res, rl, "payload_errors");
            if (rc != 0 && errors == 0) {
                lib.check(rc, cuda ? "marrow_gda_goodput_cuda_run" : "marrow_gda_goodput_cpu_run");
            }
            return new Run(spec, getLong(res, rl, "timed_bytes"), getLong(res, rl, "timed_ns"),
                    getLong(res, rl, "doorbells"), getLong(res, rl, "cqes"), errors, getInt(res, rl, "slots"),
                    nic == null ? java.util.Map.of() : nic.counters().minus(before).values());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("mini-gda goodput run failed: " + t, t);
        }
    }
}
