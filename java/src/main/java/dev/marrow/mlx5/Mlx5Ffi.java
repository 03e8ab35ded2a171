// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * FFM bindings of marrow_mlx5.h (libmarrow_verbs.so) and marrow_cuda_map.h
 * (libmarrow_cuda.so). Layout names are the C names, so {@link NativeLib#verifyLayouts}
 * checks every field against what the C compiler chose before any call.
 */
public final class Mlx5Ffi {
    private Mlx5Ffi() {
    }

    public static final StructLayout DEVICE_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("name"),
            JAVA_INT.withName("port"),
            JAVA_INT.withName("gid_index")).withName("marrow_mlx5_device_attr");

    public static final StructLayout QP_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("log_sq_wqebb_cnt"),
            JAVA_INT.withName("log_cqe_cnt"),
            JAVA_INT.withName("max_inline_data"),
            JAVA_INT.withName("access"),
            JAVA_INT.withName("placement"),
            JAVA_INT.withName("sq_psn")).withName("marrow_mlx5_qp_attr");

    public static final StructLayout PEER_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("qpn"),
            JAVA_INT.withName("psn"),
            JAVA_INT.withName("rkey"),
            JAVA_INT.withName("lid"),
            JAVA_INT.withName("port"),
            JAVA_INT.withName("link_layer"),
            JAVA_INT.withName("mtu"),
            JAVA_INT.withName("gid_index"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("gid"),
            JAVA_LONG.withName("addr"),
            JAVA_LONG.withName("len")).withName("marrow_mlx5_peer_info");

    public static final StructLayout CONN_PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("sl"),
            JAVA_INT.withName("traffic_class"),
            JAVA_INT.withName("hop_limit"),
            JAVA_INT.withName("timeout"),
            JAVA_INT.withName("retry_cnt"),
            JAVA_INT.withName("rnr_retry"),
            JAVA_INT.withName("min_rnr_timer"),
            JAVA_INT.withName("max_rd_atomic"),
            JAVA_INT.withName("max_dest_rd_atomic"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("reserved")).withName("marrow_mlx5_conn_params");

    /** Every struct crossing into libmarrow_verbs.so; the views are the softnic's. */
    public static final List<StructLayout> ALL = List.of(DEVICE_ATTR, QP_ATTR, PEER_INFO, CONN_PARAMS,
            EmuLayouts.QP_VIEW, EmuLayouts.CQ_VIEW);

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

        private static NativeLib load() {
            NativeLib lib = NativeLib.load("verbs");
            lib.verifyLayouts(ALL);
            return lib;
        }

        private static MethodHandle h(String name, MemoryLayout ret, MemoryLayout... args) {
            return LIB.handle(name, FunctionDescriptor.of(ret, args));
        }
    }

    /** libmarrow_cuda.so's host-mapping calls; loaded only when a GPU mapping is asked for. */
    static final class C {
        static final NativeLib LIB = NativeLib.load("cuda");
        static final MethodHandle REGISTER = LIB.handle("marrow_cuda_host_register",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        static final MethodHandle UNREGISTER = LIB.handle("marrow_cuda_host_unregister",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** The verbs library, handshake done (for tests and diagnostics). */
    public static NativeLib verbsLib() {
        return V.LIB;
    }

    static long off(StructLayout l, String field) {
        return l.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof ExceptionInInitializerError e && e.getCause() instanceof RuntimeException r) {
            return r;
        }
        return NativeLib.rethrow(t);
    }

    /** Reads a NUL-terminated char array field. */
    static String str(MemorySegment s, StructLayout l, String field) {
        return s.asSlice(off(l, field)).getString(0);
    }
}
