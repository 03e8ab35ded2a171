// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.gda.EngineLayout;
import dev.marrow.api.Backend;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.gda.Payload;
import dev.marrow.gda.rate.internal.RateFfi;
import dev.marrow.gda.rate.internal.RateLayouts;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuFfi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.LinkedHashMap;
import java.util.Map;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * --nic softnic-device: one rate point on GPU-resident queues served by the
 * software NIC's device engine (marrow_gda_rate_devnic_run). The native call
 * owns the whole life cycle (queues, engine start, the rate kernel on a
 * non-blocking stream, bounded engine stop, the destination check), because
 * nothing may allocate or synchronise the device while the persistent engine
 * kernel runs (docs/design/device-engine.md).
 */
final class DeviceEngineRate {
    /** Bound of the engine's stop after the rate kernel ended. */
    static final long STOP_TIMEOUT_NS = 10_000_000_000L;

    private DeviceEngineRate() {
    }

    static RateResult run(RateSpec spec) {
        Backend.CUDA.ensureAvailability(); // no GPU: unavailable (exit 77) before the library loads
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cfg = GdaRate.config(a, spec);
            StructLayout dl = RateLayouts.DEVNIC;
            MemorySegment dn = CStruct.allocate(a, dl);
            setInt(dn, dl, "nic_sms", spec.nicSms());
            setInt(dn, dl, "threads_per_sm", 0); // the engine layout's default
            setInt(dn, dl, "log_sq", spec.logSq());
            setInt(dn, dl, "max_inline_data", spec.payload() == Payload.INLINE ? 220 : 0);
            setLong(dn, dl, "stop_timeout_ns", STOP_TIMEOUT_NS);
            MemorySegment res = CStruct.allocate(a, RateLayouts.RESULT);
            boolean scope = spec.experiment() == RateExperiment.SCOPE;
            MemorySegment samples = scope ? a.allocate(JAVA_LONG, spec.messages()) : MemorySegment.NULL;
            int n = (int) EmuFfi.COUNTER_COUNT.invokeExact();
            MemorySegment ctr = a.allocate(JAVA_LONG, n);
            int rc = (int) RateFfi.Cuda.RUN_DEVNIC.invokeExact(cfg, dn, samples, res, ctr, n);
            long payloadErrors = getLong(res, RateLayouts.RESULT, "payload_errors");
            if (rc != 0 && !(rc == Status.EPROTO.code() && payloadErrors > 0)) {
                try {
                    RateFfi.Cuda.LIB.check(rc, "marrow_gda_rate_devnic_run");
                } catch (NativeException e) {
                    if (e.is(Status.EINVAL)) { // refused before anything was posted: a usage error
                        throw new IllegalArgumentException(e.getMessage(), e);
                    }
                    if (e.is(Status.ENODEV)) {
                        throw e.unavailableIfNoDevice("gda rate --nic softnic-device: " + e.getMessage());
                    }
                    throw e;
                }
            }
            Map<String, Long> emu = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                MemorySegment name = (MemorySegment) EmuFfi.COUNTER_NAME.invokeExact(i);
                emu.put(name.reinterpret(128).getString(0), ctr.getAtIndex(JAVA_LONG, i));
            }
            DeviceEngineUse use = new DeviceEngineUse(spec.nicSms(), getInt(dn, dl, "distinct_sms"),
                    getInt(dn, dl, "max_blocks_per_sm"), getInt(dn, dl, "device_sms"),
                    getInt(dn, dl, "shared_sms") != 0, EngineLayout.labelOf(getInt(dn, dl, "exec_mode")),
                    getInt(dn, dl, "threads_per_sm_run"));
            return GdaRate.result(spec, res, samples, emu, use);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("mini-gda rate on the device engine failed: " + t, t);
        }
    }
}
