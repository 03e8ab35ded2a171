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
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** marrow_gda_loaded.h: structs as libmarrow_host.so describes them ({@link CStruct}) and the CPU runner. */
public final class LoadedFfi {
    private LoadedFfi() {
    }

    private static final NativeLib HOST = GdaFfi.Host.LIB;

    public static final StructLayout CONFIG = layout(HOST, "marrow_gda_loaded_config",
            i32("ordering"), i32("queue"), i32("bg_streams"), i32("bg_window"), i32("bg_signal_every"), i32("role"),
            i64("pace_msgs_per_s"), i64("iters"), i64("warmup"), i64("timeout_ns"), i64("bg_dst_addr"),
            i64("bg_dst_len"), i32("bg_dst_rkey"), i32("cuda_device"), i64("bg_posted_addr"));

    public static final StructLayout RESULT = layout(HOST, "marrow_gda_loaded_result",
            i64("probes_done"), i64("timed_ns"), i64("bg_in_window"), i64("bg_posted"), i64("bg_slot_errors"),
            i64("probe_errors"), i32("status"), i32("fail_iter"), i32("cuda_error"));

    /** Slots per background stream and the most streams (MARROW_GDA_LOADED_*). */
    public static final int SLOTS = (int) HOST.constant("MARROW_GDA_LOADED_SLOTS");
    public static final int MAX_STREAMS = (int) HOST.constant("MARROW_GDA_LOADED_MAX_STREAMS");
    public static final int SHARED = (int) HOST.constant("MARROW_GDA_LOADED_SHARED");
    public static final int RESERVED = (int) HOST.constant("MARROW_GDA_LOADED_RESERVED");
    /** Roles (enum marrow_gda_loaded_role): one process, or one side of two. */
    public static final int ROLE_BOTH = (int) HOST.constant("MARROW_GDA_LOADED_BOTH");
    public static final int ROLE_INITIATOR = (int) HOST.constant("MARROW_GDA_LOADED_INITIATOR");
    public static final int ROLE_RESPONDER = (int) HOST.constant("MARROW_GDA_LOADED_RESPONDER");

    /** uint64 marrow_gda_loaded_check_slots(uint64 dst_addr, uint32 streams, const uint64 *posted) */
    public static final MethodHandle CHECK_SLOTS = HOST.handle("marrow_gda_loaded_check_slots",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS));

    /** int marrow_gda_loaded_cpu_run(cfg*, probe*, peer*, bg_eps*, uint64 *samples, result*) */
    public static final MethodHandle CPU_RUN = HOST.handle("marrow_gda_loaded_cpu_run",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

    /** libmarrow_cuda.so's runner (same arguments), loaded with the CUDA library. */
    public static final class Cuda {
        private Cuda() {
        }

        public static final MethodHandle CUDA_RUN = GdaFfi.Cuda.LIB.handle("marrow_gda_loaded_cuda_run",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    }
}
