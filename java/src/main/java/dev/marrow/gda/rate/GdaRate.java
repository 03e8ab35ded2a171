// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.api.TimeoutDump;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.api.softnic.WireModel;
import dev.marrow.fabric.Target;
import dev.marrow.gda.rate.internal.RateFfi;
import dev.marrow.gda.rate.internal.RateLayouts;
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
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * mini-gda throughput: one call runs one point on fresh queues. The timed
 * loops are C (cpu target) or CUDA (cuda target), never Java.
 *
 * <pre>{@code
 * RateResult r = GdaRate.run(RateSpec.defaults(Target.CPU)
 *         .with(Publication.WARP, QpMapping.PER_BLOCK, 1, 32, 1, 32).validate());
 * double mmsg = r.rateMmsgPerSec();
 * }</pre>
 *
 * @see RateRecords for the result records
 */
public final class GdaRate {
    private GdaRate() {
    }

    /**
     * @throws IllegalArgumentException        for a bad spec (the CLI flag is named)
     * @throws dev.marrow.api.BackendUnavailableException when the GPU, the NIC or the device engine is missing
     * @throws NativeException                  when the run fails (a timeout carries the watchdog dump)
     */
    public static RateResult run(RateSpec spec) {
        spec.validate();
        if (spec.nic() == RateNic.SOFTNIC_DEVICE) {
            return DeviceEngineRate.run(spec);
        }
        return run(spec, null).result();
    }

    /**
     * A rate run and what the software NIC's wire model saw of it (gda goodput --posters).
     *
     * @param wireBytes  bytes the modeled port serialised over the run (payload and headers)
     * @param wireHeldNs time CQEs were held for the port over the run
     */
    public record Wired(RateResult result, long wireBytes, long wireHeldNs) {
    }

    /**
     * The same run on the software NIC ({@link RateNic#SOFTNIC}) with {@code wire} set on its one
     * port before the first post (docs/design/wire-model.md).
     *
     * @throws IllegalArgumentException for a bad spec or another NIC
     */
    public static Wired runWired(RateSpec spec, WireModel wire) {
        spec.validate();
        if (spec.nic() != RateNic.SOFTNIC || wire == null) {
            throw new IllegalArgumentException("a wire model applies to --nic softnic (the CPU engine) only");
        }
        return run(spec, wire);
    }

    /** wire null: the NIC's own default (no model), as every plain rate run. */
    private static Wired run(RateSpec spec, WireModel wire) {
        try (RateQueues q = RateQueues.open(spec); Arena a = Arena.ofConfined()) {
            SoftNic.WireStats w0 = null;
            if (wire != null) {
                q.softNic().setWire(wire);
                w0 = q.softNic().wireStats();
            }
            // after open: a missing GPU or NIC is reported as unavailable before the library loads
            NativeLib lib = spec.target() == Target.CUDA ? RateFfi.Cuda.LIB : RateFfi.Host.LIB;
            MemorySegment cfg = config(a, spec);
            StructLayout rl = RateLayouts.RESULT;
            MemorySegment res = CStruct.allocate(a, rl);
            boolean scope = spec.experiment() == RateExperiment.SCOPE;
            MemorySegment samples = scope ? a.allocate(JAVA_LONG, spec.messages()) : MemorySegment.NULL;
            SoftNicCounters before = q.counters();
            int rc = spec.target() == Target.CUDA
                    ? (int) RateFfi.Cuda.RUN_CUDA.invokeExact(cfg, q.endpoints, q.count, samples, res)
                    : (int) RateFfi.Host.RUN_CPU.invokeExact(cfg, q.endpoints, q.count, samples, res);
            long payloadErrors = getLong(res, rl, "payload_errors");
            if (rc != 0 && !(rc == Status.EPROTO.code() && payloadErrors > 0)) {
                try {
                    lib.check(rc, spec.target() == Target.CUDA ? "marrow_gda_rate_cuda_run" : "marrow_gda_rate_cpu_run");
                } catch (NativeException e) {
                    if (e.is(Status.EINVAL)) { // refused before anything was posted: a usage error
                        throw new IllegalArgumentException(e.getMessage(), e);
                    }
                    throw withEngineView(e, q);
                }
            }
            Map<String, Long> emu = before == null ? Map.of() : q.counters().minus(before).values();
            RateResult r = result(spec, res, samples, emu, null);
            if (w0 == null) {
                return new Wired(r, 0, 0);
            }
            SoftNic.WireStats w1 = q.softNic().wireStats();
            return new Wired(r, w1.wireBytes() - w0.wireBytes(), w1.heldNs() - w0.heldNs());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("mini-gda rate run failed: " + t, t);
        }
    }

    /** The RateResult of a filled struct marrow_gda_rate_result. */
    static RateResult result(RateSpec spec, MemorySegment res, MemorySegment samples, Map<String, Long> emu,
                             DeviceEngineUse engine) {
        StructLayout rl = RateLayouts.RESULT;
        boolean scope = spec.experiment() == RateExperiment.SCOPE;
        long payloadErrors = getLong(res, rl, "payload_errors");
        return new RateResult(spec, getLong(res, rl, "messages"), getLong(res, rl, "posts"),
                getLong(res, rl, "doorbells"), getLong(res, rl, "signaled"), getLong(res, rl, "cqes"),
                getLong(res, rl, "elapsed_ns"), getLong(res, rl, "sq_full_waits"),
                getLong(res, rl, "sq_full_ticks"), getLong(res, rl, "publish_ticks"),
                getLong(res, rl, "reap_ticks"), getLong(res, rl, "post_ticks"),
                getLong(res, rl, "slots_checked"), payloadErrors, getLong(res, rl, "host_rings"),
                getLong(res, rl, "host_polls"), getInt(res, rl, "ticks_are_cycles") != 0,
                getInt(res, rl, "signal_period_effective"), getInt(res, rl, "window_effective"),
                getInt(res, rl, "wqebbs_per_wqe"), getLong(res, rl, "fence_ticks"), getLong(res, rl, "wqe_ticks"),
                RatePath.ofCode(getInt(res, rl, "path")), scope ? samples.toArray(JAVA_LONG) : new long[0], emu,
                engine);
    }

    static MemorySegment config(Arena a, RateSpec s) {
        StructLayout cl = RateLayouts.CONFIG;
        MemorySegment c = CStruct.allocate(a, cl);
        setInt(c, cl, "experiment", s.experiment().code());
        setInt(c, cl, "publication", s.publication().code());
        setInt(c, cl, "qp_map", s.qpMapping().code());
        setInt(c, cl, "doorbell", s.doorbell().code());
        setInt(c, cl, "blocks", s.blocks());
        setInt(c, cl, "threads", s.threads());
        setInt(c, cl, "qps", s.qps());
        setInt(c, cl, "batch", s.batch());
        setInt(c, cl, "signal_period", s.signalPeriod());
        setInt(c, cl, "window", s.window());
        setInt(c, cl, "payload", s.payload().code());
        setInt(c, cl, "msg_size", s.size());
        setInt(c, cl, "scope", s.scope().code());
        setInt(c, cl, "ordering", s.ordering().code());
        setLong(c, cl, "messages", s.messages());
        setLong(c, cl, "warmup", s.warmup());
        setLong(c, cl, "timeout_ns", s.timeoutNs());
        setInt(c, cl, "cuda_device", s.cudaDevice());
        setInt(c, cl, "doorbell_cpu", s.doorbellCpu());
        setInt(c, cl, "path", s.path().code());
        return c;
    }

    /** A timeout on the software NIC: the engine's view of the QP that waited goes after the runner's dump. */
    private static NativeException withEngineView(NativeException e, RateQueues q) {
        if (!e.isTimeout() || !(TimeoutDump.parse(e.getMessage()).get("qpn") instanceof String qpn)) {
            return e;
        }
        try {
            String emu = q.watchdogDump(Long.decode(qpn));
            return emu.isEmpty() ? e : e.withMore(" " + emu);
        } catch (RuntimeException dumpFailed) {
            e.addSuppressed(dumpFailed);
            return e;
        }
    }
}
