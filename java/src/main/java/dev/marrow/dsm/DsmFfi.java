// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Downcall handles for the DSM entry points of libmarrow_cuda.so
 * (marrow_dsm.h), one static final field each. Loading this class loads the
 * library and runs the ABI handshake (version + every DSM struct layout);
 * it needs no GPU.
 */
public final class DsmFfi {
    private DsmFfi() {
    }

    public static final NativeLib LIB = load();

    private static NativeLib load() {
        NativeLib lib = NativeLib.shared("cuda");
        DsmLayouts.ALL.size(); // built from this library: the layout handshake
        lib.verifyConstants(DsmDevice.LoadKernel.values());
        Sample.MIRRORED_CONSTANTS.forEach(lib::verifyConstant);
        return lib;
    }

    /** int marrow_dsm_device_info(int dev, struct marrow_dsm_device_info *out). */
    public static final MethodHandle DEVICE_INFO = LIB.handle("marrow_dsm_device_info",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    /** int marrow_dsm_timer_probe(int dev, uint32_t window_us, struct marrow_dsm_timer_info *out). */
    public static final MethodHandle TIMER_PROBE = LIB.handle("marrow_dsm_timer_probe",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    /** int marrow_dsm_run(const struct marrow_dsm_params *p, struct marrow_dsm_sample *out, uint32_t n). */
    public static final MethodHandle RUN = LIB.handle("marrow_dsm_run",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    /** int marrow_dsm_latency(const struct marrow_dsm_lat_params *p, struct marrow_dsm_lat_sample *out, uint32_t n). */
    public static final MethodHandle LATENCY = LIB.handle("marrow_dsm_latency",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
}
