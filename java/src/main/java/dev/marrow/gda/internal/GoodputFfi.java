// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.internal;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * marrow_gda_goodput.h: the structs as libmarrow_host.so describes them
 * ({@link CStruct}) and the two runners' downcall handles (the CUDA one is
 * resolved only when a cuda run asks for it).
 */
public final class GoodputFfi {
    private GoodputFfi() {
    }

    private static final NativeLib HOST = GdaFfi.Host.LIB;

    public static final StructLayout CONFIG = layout(HOST, "marrow_gda_goodput_config",
            i32("ordering"), i32("msg_size"), i32("window"), i32("signal_every"), i64("messages"), i64("warmup"),
            i64("timeout_ns"), i32("cuda_device"), i32("qps"));

    /** MARROW_GDA_GOODPUT_MAX_QPS: the most QPs one run posts to. */
    public static final int MAX_QPS = (int) HOST.constant("MARROW_GDA_GOODPUT_MAX_QPS");

    public static final StructLayout RESULT = layout(HOST, "marrow_gda_goodput_result",
            i64("messages_done"), i64("timed_messages"), i64("timed_bytes"), i64("timed_ns"), i64("doorbells"),
            i64("cqes"), i64("payload_errors"), i64("fail_message"), i32("slots"), i32("status"), i32("cuda_error"));

    private static final FunctionDescriptor RUN = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);

    /** int marrow_gda_goodput_cpu_run(cfg*, ep*, result*) */
    public static final MethodHandle CPU_RUN = HOST.handle("marrow_gda_goodput_cpu_run", RUN);

    /** libmarrow_cuda.so's runner, loaded with the CUDA library. */
    public static final class Cuda {
        private Cuda() {
        }

        public static final MethodHandle CUDA_RUN = GdaFfi.Cuda.LIB.handle("marrow_gda_goodput_cuda_run", RUN);
    }
}
