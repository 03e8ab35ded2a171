// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import java.lang.foreign.StructLayout;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static dev.marrow.internal.ffi.CStruct.ptr;

/**
 * The structs of marrow_softnic.h as libmarrow_emu.so describes them
 * ({@link CStruct}): Java names the fields it uses, C places them.
 */
public final class EmuLayouts {
    private EmuLayouts() {
    }

    private static final NativeLib LIB = NativeLib.shared("emu");

    public static final StructLayout DEVICE_ATTR = layout(LIB, "marrow_emu_device_attr",
            i32("poll_mode"), i32("engine_threads"), i32("idle_sleep_max_ns"), i32("sweep_every"), i32("engine_cpu"),
            i32("quiet"));

    public static final StructLayout CQ_ATTR = layout(LIB, "marrow_emu_cq_attr", i32("log_cqe_cnt"), i32("flags"));

    public static final StructLayout CQ_VIEW = layout(LIB, "marrow_cq_view",
            i32("cqn"), i32("cqe_cnt"), i32("cqe_size"), i32("flags"), ptr("buf"), ptr("dbrec"));

    public static final StructLayout QP_ATTR = layout(LIB, "marrow_emu_qp_attr",
            ptr("send_cq"), ptr("recv_cq"), i32("log_sq_wqebb_cnt"), i32("log_rq_wqe_cnt"), i32("max_rq_sge"),
            i32("max_inline_data"), i32("access"));

    public static final StructLayout QP_VIEW = layout(LIB, "marrow_qp_view",
            i32("qpn"), i32("sq_wqe_cnt"), i32("sq_stride"), i32("rq_wqe_cnt"), i32("rq_stride"), i32("max_inline_data"),
            ptr("sq_buf"), ptr("rq_buf"), ptr("dbrec"), ptr("uar"), i64("uar_size"));

    public static final StructLayout BENCH_RESULT = layout(LIB, "marrow_emu_bench_result",
            i64("messages"), i64("doorbells"), i64("elapsed_ns"), i64("cqes"), i32("cut_short"));

    public static final StructLayout WIRE_MODEL = layout(LIB, "marrow_emu_wire_model",
            i64("bits_per_s"), i32("mtu"), i32("packet_overhead"), i32("write_overhead"), i32("imm_overhead"));

    public static final List<StructLayout> ALL = List.of(DEVICE_ATTR, CQ_ATTR, CQ_VIEW, QP_ATTR, QP_VIEW, BENCH_RESULT,
            WIRE_MODEL);
}
