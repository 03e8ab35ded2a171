// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.peer.PeerInfo;
import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.internal.ffi.NativeLib;

import dev.marrow.internal.ffi.CStruct;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.bytes;
import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static dev.marrow.internal.ffi.CStruct.ptr;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * FFM bindings of marrow_mlx5.h (libmarrow_verbs.so) and marrow_cuda_map.h
 * (libmarrow_cuda.so). The layouts are built from libmarrow_verbs.so's ABI table
 * ({@link dev.marrow.internal.ffi.CStruct}), so they are what the C compiler chose.
 */
public final class Mlx5Ffi {
    private Mlx5Ffi() {
    }

    private static final class L {
        static final NativeLib VERBS = NativeLib.shared("verbs");
    }

    public static final StructLayout DEVICE_ATTR = layout(L.VERBS, "marrow_mlx5_device_attr",
            bytes("name"), i32("port"), i32("gid_index"));

    public static final StructLayout QP_ATTR = layout(L.VERBS, "marrow_mlx5_qp_attr",
            i32("log_sq_wqebb_cnt"), i32("log_cqe_cnt"), i32("max_inline_data"), i32("access"), i32("placement"),
            i32("sq_psn"));

    public static final StructLayout PEER_INFO = layout(L.VERBS, "marrow_mlx5_peer_info",
            i32("qpn"), i32("psn"), i32("rkey"), i32("lid"), i32("port"), i32("link_layer"), i32("mtu"), i32("gid_index"),
            bytes("gid"), i64("addr"), i64("len"));

    public static final StructLayout CONN_PARAMS = layout(L.VERBS, "marrow_mlx5_conn_params",
            i32("path_mtu"), i32("sl"), i32("traffic_class"), i32("hop_limit"), i32("timeout"), i32("retry_cnt"),
            i32("rnr_retry"), i32("min_rnr_timer"), i32("max_rd_atomic"), i32("max_dest_rd_atomic"), i32("flags"));

    /** GPU memory operations for a DevX QP: libmarrow_cuda.so fills them, libmarrow_verbs.so calls them. */
    public static final StructLayout GPU_MEM_OPS = layout(L.VERBS, "marrow_mlx5_gpu_mem_ops",
            ptr("alloc"), ptr("free"), ptr("dmabuf_fd"), ptr("to_gpu"), ptr("from_gpu"), ptr("ctx"));

    /** Every struct crossing into libmarrow_verbs.so; the views are the softnic's. */
    public static final List<StructLayout> ALL = List.of(DEVICE_ATTR, QP_ATTR, PEER_INFO, CONN_PARAMS,
            GPU_MEM_OPS, EmuLayouts.QP_VIEW, EmuLayouts.CQ_VIEW);

    /** Holder: first use loads libmarrow_verbs.so and runs the layout handshake. */
    static final class V {
        static final NativeLib LIB = load();
        static final MethodHandle CONN_DEFAULT = h("marrow_mlx5_conn_params_default", JAVA_INT, ADDRESS);
        static final MethodHandle DEVICE_OPEN = h("marrow_mlx5_device_open", JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle DEVICE_CLOSE = h("marrow_mlx5_device_close", JAVA_INT, ADDRESS);
        static final MethodHandle MR_REG = h("marrow_mlx5_mr_reg", JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG,
                JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle MR_DEREG = h("marrow_mlx5_mr_dereg", JAVA_INT, ADDRESS);
        static final MethodHandle QP_CREATE = h("marrow_mlx5_qp_create", JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                ADDRESS, ADDRESS);
        static final MethodHandle QP_DESTROY = h("marrow_mlx5_qp_destroy", JAVA_INT, ADDRESS);
        static final MethodHandle QP_LOCAL_INFO = h("marrow_mlx5_qp_local_info", JAVA_INT, ADDRESS, ADDRESS,
                ADDRESS);
        static final MethodHandle QP_CONNECT = h("marrow_mlx5_qp_connect", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle QP_STATE = h("marrow_mlx5_qp_state", JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle QP_RESET = h("marrow_mlx5_qp_reset", JAVA_INT, ADDRESS);
        static final MethodHandle DEVX_CHECK = h("marrow_mlx5_devx_check", JAVA_INT, ADDRESS);
        static final MethodHandle GPU_QP_OPEN = h("marrow_mlx5_gpu_qp_open", JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
        static final MethodHandle GPU_QP_DESTROY = h("marrow_mlx5_gpu_qp_destroy", JAVA_INT, ADDRESS);
        static final MethodHandle GPU_QP_LOCAL_INFO = h("marrow_mlx5_gpu_qp_local_info", JAVA_INT, ADDRESS, ADDRESS,
                ADDRESS);
        static final MethodHandle GPU_QP_CONNECT = h("marrow_mlx5_gpu_qp_connect", JAVA_INT, ADDRESS, ADDRESS,
                ADDRESS);
        static final MethodHandle GPU_QP_INDEXES = h("marrow_mlx5_gpu_qp_indexes", JAVA_INT, ADDRESS, ADDRESS,
                ADDRESS);
        static final MethodHandle GPU_QP_RESET = h("marrow_mlx5_gpu_qp_reset", JAVA_INT, ADDRESS);

        private static NativeLib load() {
            NativeLib lib = L.VERBS;
            lib.verifyLayouts(ALL); // the views are the softnic's layouts: libmarrow_verbs.so must agree
            lib.verifyConstants(QueuePlacement.values());
            lib.verifySameConstants(dev.marrow.api.softnic.QpState.values()); // marrow_softnic.h's, as libmarrow_emu.so has them
            lib.constant("MARROW_MLX5_CONN_FORCE_GRH");
            return lib;
        }

        private static MethodHandle h(String name, MemoryLayout ret, MemoryLayout... args) {
            return LIB.handle(name, FunctionDescriptor.of(ret, args));
        }
    }

    /** libmarrow_cuda.so's host-mapping and DevX-memory calls; loaded only when a GPU is asked for. */
    static final class C {
        static final NativeLib LIB = NativeLib.shared("cuda");
        static final MethodHandle REGISTER = LIB.handle("marrow_cuda_host_register",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        static final MethodHandle UNREGISTER = LIB.handle("marrow_cuda_host_unregister",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        /** Fills a marrow_mlx5_gpu_mem_ops with cudaMalloc/cudaFree/dma-buf/cudaMemcpy on one device. */
        static final MethodHandle DEVX_MEM_OPS = LIB.handle("marrow_cuda_devx_mem_ops",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }

    /** The verbs library, handshake done (for tests and diagnostics). */
    public static NativeLib verbsLib() {
        return V.LIB;
    }

    /**
     * This side's half of the exchange for either kind of QP (verbs or DevX): fn is its
     * {@code int f(qp, mr or NULL, struct marrow_mlx5_peer_info *out)}.
     */
    static PeerInfo localInfo(MethodHandle fn, String name, MemorySegment qp, Mlx5MemoryRegion mr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, PEER_INFO);
            MemorySegment m = mr == null ? MemorySegment.NULL : mr.handle();
            V.LIB.check((int) fn.invokeExact(qp, m, s), name);
            return PeerInfo.fromNative(s, PEER_INFO);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * RESET -> INIT -> RTR -> RTS towards peer for either kind of QP: fn is its
     * {@code int f(qp, const peer_info *, const conn_params * or NULL)}; params null = the C defaults.
     */
    static void connect(MethodHandle fn, String name, MemorySegment qp, PeerInfo peer, ConnParams params) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(PEER_INFO);
            peer.toNative(p, PEER_INFO);
            MemorySegment k = MemorySegment.NULL;
            if (params != null) {
                k = a.allocate(CONN_PARAMS);
                params.toNative(k);
            }
            V.LIB.check((int) fn.invokeExact(qp, p, k), name);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof ExceptionInInitializerError e && e.getCause() instanceof RuntimeException r) {
            return r;
        }
        return NativeLib.rethrow(t);
    }
}
