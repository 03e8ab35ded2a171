// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.internal.ffi.NativeLib;

import dev.marrow.internal.ffi.CStruct;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static dev.marrow.internal.ffi.CStruct.bytes;
import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.ints;
import static dev.marrow.internal.ffi.CStruct.layout;
import static dev.marrow.internal.ffi.CStruct.ptr;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layouts and downcall handles of the mini-proxy C ABI (marrow_proxy.h):
 * libmarrow_host.so (workers, CPU producers) and, loaded only when GPU
 * producers are used, libmarrow_cuda.so. The layouts are built from the host
 * library's ABI table, which also lists the CUDA-side structs (same header).
 */
final class ProxyFfi {
    private ProxyFfi() {
    }

    static final NativeLib LIB = NativeLib.shared("host");

    static final StructLayout CONFIG = layout(LIB, "marrow_proxy_config",
            i32("workers"), i32("rings"), i32("log_slots"), i32("batch"), i32("handoff"), i32("check_order"), ints("cpus"),
            i32("yield_idle"));

    static final StructLayout MEMORY = layout(LIB, "marrow_proxy_memory", i64("base"), i64("len"), i32("lkey"), i32("rkey"));

    static final StructLayout SOFTNIC_QP = layout(LIB, "marrow_proxy_softnic_qp",
            i32("qpn"), i32("sq_wqe_cnt"), i32("max_inline"), i32("cqe_cnt"), ptr("sq_buf"), ptr("sq_dbrec"), ptr("uar"),
            ptr("cq_buf"), ptr("cq_dbrec"), i64("remote_base"), i64("remote_len"), i32("remote_rkey"), i32("reserved"));

    static final StructLayout WORKER_STATS = layout(LIB, "marrow_proxy_worker_stats",
            i32("cpu"), i32("state"), i64("requests"), i64("chains"), i64("polls"), i64("empty_polls"), i64("cqes"),
            i64("sq_full"), i64("freq_before_khz"), i64("freq_after_khz"), i32("error"));

    static final StructLayout LATENCY_PARAMS = layout(LIB, "marrow_proxy_latency_params",
            i32("iters"), i32("warmup"), i32("msg_size"), i64("timeout_ns"));

    static final StructLayout RATE_PARAMS = layout(LIB, "marrow_proxy_rate_params",
            i32("producers"), i32("msg_size"), i64("messages"), i64("warmup"), i64("timeout_ns"));

    static final StructLayout RATE_RESULT = layout(LIB, "marrow_proxy_rate_result",
            i64("messages"), i64("elapsed_ns"), i64("ring_full_waits"), i64("cache_refreshes"), i64("verify_errors"));

    static final StructLayout CUDA_OPEN_ARGS = layout(LIB, "marrow_proxy_cuda_open_args",
            ptr("arena"), i64("arena_bytes"), ptr("buffer"), i64("buffer_len"), i32("rings"), i32("log_slots"),
            i32("handoff"), i32("gpu"), i32("use_gdrcopy"));

    static final StructLayout CUDA_INFO = layout(LIB, "marrow_proxy_cuda_info", i32("cpl_kind"), i32("sm_clock_khz"),
            bytes("note"));

    /** The peer exchange's QP description, as the verbs backend reads and writes it (marrow_mlx5.h). */
    static final StructLayout PEER_INFO = layout(LIB, "marrow_mlx5_peer_info",
            i32("qpn"), i32("psn"), i32("rkey"), i32("lid"), i32("port"), i32("link_layer"), i32("mtu"), i32("gid_index"),
            bytes("gid"), i64("addr"), i64("len"));

    static {
        LIB.verifyConstants(Handoff.values(), GpuProducers.CplKind.values());
    }

    private static MethodHandle h(String name, FunctionDescriptor fd) {
        return LIB.handle(name, fd);
    }

    private static final FunctionDescriptor I_P = FunctionDescriptor.of(JAVA_INT, ADDRESS);

    static final MethodHandle CREATE = h("marrow_proxy_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle ATTACH_SOFTNIC = h("marrow_proxy_attach_softnic",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle ATTACH_VERBS_SQ = h("marrow_proxy_attach_verbs_sq",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle ATTACH_VERBS_PEER = h("marrow_proxy_attach_verbs_peer",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle VERBS_LOCAL = h("marrow_proxy_verbs_local",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle VERBS_CONNECT = h("marrow_proxy_verbs_connect",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle VERBS_PROBE = h("marrow_proxy_verbs_probe",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
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

    static final MethodHandle CONFIG_CHECK = h("marrow_proxy_config_check", I_P);
    static final MethodHandle LATENCY_CHECK = h("marrow_proxy_latency_check",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle RATE_CHECK = h("marrow_proxy_rate_check", I_P);

    /** A struct marrow_proxy_config in a. */
    static MemorySegment config(Arena a, ProxyConfig.Geometry g, Handoff h, ProxyConfig.WorkerOptions w) {
        MemorySegment cfg = CStruct.allocate(a, CONFIG);
        setInt(cfg, CONFIG, "workers", g.workers());
        setInt(cfg, CONFIG, "rings", g.rings());
        setInt(cfg, CONFIG, "log_slots", g.logSlots());
        setInt(cfg, CONFIG, "batch", g.batch());
        setInt(cfg, CONFIG, "handoff", h.code());
        setInt(cfg, CONFIG, "check_order", w.checkOrder() ? 1 : 0);
        setInt(cfg, CONFIG, "yield_idle", w.yieldIdle() ? 1 : 0);
        MemorySegment cpus = CStruct.slice(cfg, CONFIG, "cpus");
        int[] pinned = w.cpus();
        for (int i = 0; i < cpus.byteSize() / JAVA_INT.byteSize(); i++) {
            cpus.setAtIndex(JAVA_INT, i, i < pinned.length ? pinned[i] : -1);
        }
        return cfg;
    }

    /**
     * The library's check of a configuration (marrow_proxy_config_check: the
     * MARROW_PROXY_MAX_* limits live there); its refusal is a usage error
     * carrying the library's message.
     */
    static void checkConfig(ProxyConfig.Geometry g, Handoff h, ProxyConfig.WorkerOptions w) {
        if (g == null || h == null) {
            throw new IllegalArgumentException("a proxy config needs its ring geometry and a handoff");
        }
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) CONFIG_CHECK.invokeExact(config(a, g, h, w));
            if (rc != 0) {
                throw LIB.exception(rc, "marrow_proxy_config_check").usageIfInvalid();
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** libmarrow_cuda.so entry points, resolved on first use. */
    static final class Cuda {
        private Cuda() {
        }

        static final NativeLib CLIB = NativeLib.shared("cuda");
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
}
