// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;

/** struct marrow_gda_config: filled for a run, and checked by the library that owns its limits. */
final class GdaConfigs {
    private GdaConfigs() {
    }

    static MemorySegment fill(Arena a, Experiment e, Ordering o, Payload p, int size, long iters, long warmup,
                              long timeoutNs, int cudaDevice) {
        MemorySegment cfg = CStruct.allocate(a, GdaLayouts.CONFIG);
        setInt(cfg, GdaLayouts.CONFIG, "experiment", e.code());
        setInt(cfg, GdaLayouts.CONFIG, "ordering", o.code());
        setInt(cfg, GdaLayouts.CONFIG, "payload", p.code());
        setInt(cfg, GdaLayouts.CONFIG, "msg_size", size);
        setLong(cfg, GdaLayouts.CONFIG, "iters", iters);
        setLong(cfg, GdaLayouts.CONFIG, "warmup", warmup);
        setLong(cfg, GdaLayouts.CONFIG, "timeout_ns", timeoutNs);
        setInt(cfg, GdaLayouts.CONFIG, "cuda_device", cudaDevice);
        return cfg;
    }

    /** marrow_gda_config_check; a refusal is an IllegalArgumentException with the library's message. */
    static void check(Experiment e, Ordering o, Payload p, int size, long iters, long warmup, long timeoutNs) {
        NativeLib lib = GdaFfi.Host.LIB;
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) GdaFfi.Host.CONFIG_CHECK.invokeExact(fill(a, e, o, p, size, iters, warmup, timeoutNs, 0));
            if (rc != 0) {
                throw lib.exception(rc, "marrow_gda_config_check").usageIfInvalid();
            }
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }
}
