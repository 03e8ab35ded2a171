// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate.internal;

import dev.marrow.gda.rate.CompletionScope;
import dev.marrow.gda.rate.DoorbellMode;
import dev.marrow.gda.EngineLayout;
import dev.marrow.gda.rate.Publication;
import dev.marrow.gda.rate.QpMapping;
import dev.marrow.gda.rate.RateExperiment;
import dev.marrow.gda.rate.RatePath;
import dev.marrow.internal.ffi.CEnum;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.StructLayout;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;

/** The structs of marrow_gda_rate.h as libmarrow_host.so describes them; libmarrow_cuda.so is checked against them. */
public final class RateLayouts {
    private RateLayouts() {
    }

    private static final NativeLib LIB = NativeLib.shared("host");

    public static final StructLayout CONFIG = layout(LIB, "marrow_gda_rate_config",
            i32("experiment"), i32("publication"), i32("qp_map"), i32("doorbell"), i32("blocks"), i32("threads"),
            i32("qps"), i32("batch"), i32("signal_period"), i32("window"), i32("payload"), i32("msg_size"),
            i32("scope"), i32("ordering"), i64("messages"), i64("warmup"), i64("timeout_ns"), i32("cuda_device"),
            i32("doorbell_cpu"), i32("path"), i32("reserved"));

    public static final StructLayout RESULT = layout(LIB, "marrow_gda_rate_result",
            i64("messages"), i64("posts"), i64("doorbells"), i64("signaled"), i64("cqes"), i64("elapsed_ns"),
            i64("sq_full_waits"), i64("sq_full_ticks"), i64("publish_ticks"), i64("reap_ticks"), i64("post_ticks"),
            i64("slots_checked"), i64("payload_errors"), i64("host_rings"), i64("host_polls"),
            i32("ticks_are_cycles"), i32("signal_period_effective"), i32("window_effective"), i32("wqebbs_per_wqe"),
            i32("status"), i32("fail_thread"), i32("fail_qp"), i32("fail_wait"), i32("cuda_error"), i32("path"),
            i64("fence_ticks"), i64("wqe_ticks"));

    public static final StructLayout DEVNIC = layout(LIB, "marrow_gda_rate_devnic",
            i32("nic_sms"), i32("threads_per_sm"), i32("log_sq"), i32("max_inline_data"), i64("stop_timeout_ns"),
            i32("distinct_sms"), i32("max_blocks_per_sm"), i32("device_sms"), i32("shared_sms"),
            i32("exec_mode"), i32("threads_per_sm_run"));

    /** MARROW_GDA_RATE_MAX_POINTER_SIZE: the largest pointer WRITE of the host-queue runners. */
    public static final int MAX_POINTER_SIZE = (int) LIB.constant("MARROW_GDA_RATE_MAX_POINTER_SIZE");

    public static final List<StructLayout> ALL = List.of(CONFIG, RESULT, DEVNIC);

    /** The marrow_gda_rate.h enums Java uses; each runner library must export every value. */
    static final CEnum[][] CONSTANTS = {Publication.values(), QpMapping.values(), DoorbellMode.values(),
            CompletionScope.values(), RateExperiment.values(), EngineLayout.values(), RatePath.values()};
}
