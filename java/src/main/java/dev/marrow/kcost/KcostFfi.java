// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The kernel-cost structs and entry points of marrow_kcost.h in
 * libmarrow_cuda.so. Loaded on first use (the class initialiser runs the
 * layout handshake), so nothing here is touched on a host without the
 * CUDA library until a command needs it.
 */
final class KcostFfi {
    private KcostFfi() {
    }

    static final NativeLib LIB = NativeLib.shared("cuda");

    static final StructLayout CONFIG = layout(LIB, "marrow_kcost_config",
            i32("caller"), i32("transport"), i32("live"), i32("blocks"), i32("threads"), i32("msgs"),
            i32("msg_size"), i32("wait"), i32("launches"), i32("warmup"), i64("work"), i64("timeout_ns"),
            i32("cuda_device"));

    static final StructLayout RESULT = layout(LIB, "marrow_kcost_result",
            i32("regs_per_thread"), i32("local_bytes"), i32("blocks_per_sm"), i32("sm_count"),
            i32("max_threads_per_block"), i32("status"), i64("messages"), i64("completions"), i64("checksum"),
            i32("cuda_error"), i32("failed_block"));

    static {
        LIB.verifyLayouts(List.of(CONFIG, RESULT));
        LIB.verifyConstants(Caller.values(), Transport.values());
    }

    /** int marrow_kcost_attributes(cfg*, result*) */
    static final MethodHandle ATTRIBUTES = LIB.handle("marrow_kcost_attributes",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** int marrow_kcost_run(cfg*, const marrow_gda_endpoint *eps, uint32 n, proxy_cuda_ctx*, float *times_ms, result*) */
    static final MethodHandle RUN = LIB.handle("marrow_kcost_run",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** int marrow_kcost_live_count(void) */
    static final MethodHandle LIVE_COUNT = LIB.handle("marrow_kcost_live_count", FunctionDescriptor.of(JAVA_INT));
    /** int marrow_kcost_live_value(int i) */
    static final MethodHandle LIVE_VALUE = LIB.handle("marrow_kcost_live_value",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
}
