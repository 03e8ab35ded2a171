// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.api.NativeException;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layouts and downcall handles of the mini-proxy C ABI (marrow_proxy.h):
 * libmarrow_host.so (workers, CPU producers) and, loaded only when GPU
 * producers are used, libmarrow_cuda.so. The host library's ABI table also
 * lists the CUDA-side structs (same header), so one handshake covers both.
 */
final class ProxyFfi {
    private ProxyFfi() {
    }

    static final StructLayout CONFIG = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_INT.withName("workers"),
            JAVA_INT.withName("rings"), JAVA_INT.withName("log_slots"), JAVA_INT.withName("batch"),
            JAVA_INT.withName("handoff"), JAVA_INT.withName("check_order"),
            MemoryLayout.sequenceLayout(64, JAVA_INT).withName("cpus")).withName("marrow_proxy_config");

    static final StructLayout MEMORY = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_LONG.withName("base"),
            JAVA_LONG.withName("len"), JAVA_INT.withName("lkey"), JAVA_INT.withName("rkey")).withName("marrow_proxy_memory");

    static final StructLayout SOFTNIC_QP = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_INT.withName("qpn"),
            JAVA_INT.withName("sq_wqe_cnt"), JAVA_INT.withName("max_inline"), JAVA_INT.withName("cqe_cnt"),
            ADDRESS.withName("sq_buf"), ADDRESS.withName("sq_dbrec"), ADDRESS.withName("uar"),
            ADDRESS.withName("cq_buf"), ADDRESS.withName("cq_dbrec")).withName("marrow_proxy_softnic_qp");

    static final StructLayout WORKER_STATS = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_INT.withName("cpu"),
            JAVA_INT.withName("state"), JAVA_LONG.withName("requests"), JAVA_LONG.withName("chains"),
            JAVA_LONG.withName("polls"), JAVA_LONG.withName("empty_polls"), JAVA_LONG.withName("cqes"),
            JAVA_LONG.withName("sq_full"), JAVA_LONG.withName("freq_before_khz"), JAVA_LONG.withName("freq_after_khz"),
            JAVA_INT.withName("error"), JAVA_INT.withName("reserved")).withName("marrow_proxy_worker_stats");

    static final StructLayout LATENCY_PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_INT.withName("iters"),
            JAVA_INT.withName("warmup"), JAVA_INT.withName("msg_size"), JAVA_INT.withName("reserved"),
            JAVA_LONG.withName("timeout_ns")).withName("marrow_proxy_latency_params");

    static final StructLayout RATE_PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_INT.withName("producers"),
            JAVA_INT.withName("msg_size"), JAVA_LONG.withName("messages"), JAVA_LONG.withName("warmup"),
            JAVA_LONG.withName("timeout_ns")).withName("marrow_proxy_rate_params");

    static final StructLayout RATE_RESULT = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_LONG.withName("messages"),
            JAVA_LONG.withName("elapsed_ns"), JAVA_LONG.withName("ring_full_waits"),
            JAVA_LONG.withName("cache_refreshes"), JAVA_LONG.withName("verify_errors")).withName("marrow_proxy_rate_result");

    static final StructLayout CUDA_OPEN_ARGS = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), ADDRESS.withName("arena"),
            JAVA_LONG.withName("arena_bytes"), ADDRESS.withName("buffer"), JAVA_LONG.withName("buffer_len"),
            JAVA_INT.withName("rings"), JAVA_INT.withName("log_slots"), JAVA_INT.withName("handoff"),
            JAVA_INT.withName("gpu"), JAVA_INT.withName("use_gdrcopy"), JAVA_INT.withName("reserved"))
            .withName("marrow_proxy_cuda_open_args");

    static final StructLayout CUDA_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"), JAVA_INT.withName("comp_mask"), JAVA_INT.withName("cpl_kind"),
            JAVA_INT.withName("sm_clock_khz"), MemoryLayout.sequenceLayout(160, JAVA_BYTE).withName("note"))
            .withName("marrow_proxy_cuda_info");

    static final List<StructLayout> ALL = List.of(CONFIG, MEMORY, SOFTNIC_QP, WORKER_STATS, LATENCY_PARAMS,
            RATE_PARAMS, RATE_RESULT, CUDA_OPEN_ARGS, CUDA_INFO);

    static final NativeLib LIB = load();

    private static NativeLib load() {
        NativeLib lib = NativeLib.load("host");
        lib.verifyLayouts(ALL);
        return lib;
    }

    private static MethodHandle h(String name, FunctionDescriptor fd) {
        return LIB.handle(name, fd);
    }

    private static final FunctionDescriptor I_P = FunctionDescriptor.of(JAVA_INT, ADDRESS);

    static final MethodHandle CREATE = h("marrow_proxy_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle ATTACH_SOFTNIC = h("marrow_proxy_attach_softnic",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle ATTACH_VERBS = h("marrow_proxy_attach_verbs",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SET_CPL_TARGET = h("marrow_proxy_set_cpl_target",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle SET_CPUS = h("marrow_proxy_set_cpus", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle START = h("marrow_proxy_start", I_P);
    static final MethodHandle STOP = h("marrow_proxy_stop", I_P);
    static final MethodHandle DESTROY = h("marrow_proxy_destroy", I_P);
    static final MethodHandle ARENA = h("marrow_proxy_arena", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle WORKER_STATS_H = h("marrow_proxy_worker_stats",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle WORKER_WINDOW = h("marrow_proxy_worker_window",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle MARK = h("marrow_proxy_mark", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle PRECONDITION = h("marrow_proxy_precondition", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle BUFFER_BYTES = h("marrow_proxy_buffer_bytes",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle NIC_CPUS = h("marrow_proxy_nic_cpus",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle ENQUEUE = h("marrow_proxy_enqueue", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT,
            JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    static final MethodHandle WAIT = h("marrow_proxy_wait", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));
    static final MethodHandle RING_COUNTERS = h("marrow_proxy_ring_counters",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle CPU_LATENCY = h("marrow_proxy_cpu_latency",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle CPU_RATE = h("marrow_proxy_cpu_rate", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle RESPONDER_START = h("marrow_proxy_responder_start",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    static final MethodHandle RESPONDER_STOP = h("marrow_proxy_responder_stop", I_P);

    static void check(int rc, String fn) {
        LIB.check(rc, fn);
    }

    /** libmarrow_cuda.so entry points, resolved on first use. */
    static final class Cuda {
        private Cuda() {
        }

        static final NativeLib CLIB = NativeLib.load("cuda");
        static final MethodHandle OPEN = CLIB.handle("marrow_proxy_cuda_open",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle LATENCY = CLIB.handle("marrow_proxy_cuda_latency",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle RATE = CLIB.handle("marrow_proxy_cuda_rate",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle QUERY = CLIB.handle("marrow_proxy_cuda_query",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle CLOSE = CLIB.handle("marrow_proxy_cuda_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));

        static void check(int rc, String fn) {
            CLIB.check(rc, fn);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        return NativeLib.rethrow(t);
    }

    static boolean isNoDevice(NativeException e) {
        return e.status() == -19;
    }
}
