// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Java mirrors of the structs in marrow_softnic.h. Names are the C names so
 * the handshake can ask the library for each offset.
 */
public final class EmuLayouts {
    private EmuLayouts() {
    }

    public static final StructLayout DEVICE_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("poll_mode"),
            JAVA_INT.withName("engine_threads"),
            JAVA_INT.withName("idle_sleep_max_ns"),
            JAVA_INT.withName("sweep_every"),
            JAVA_INT.withName("engine_cpu"),
            JAVA_INT.withName("quiet")).withName("marrow_emu_device_attr");

    public static final StructLayout CQ_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("log_cqe_cnt"),
            JAVA_INT.withName("flags")).withName("marrow_emu_cq_attr");

    public static final StructLayout CQ_VIEW = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("cqn"),
            JAVA_INT.withName("cqe_cnt"),
            JAVA_INT.withName("cqe_size"),
            JAVA_INT.withName("flags"),
            ADDRESS.withName("buf"),
            ADDRESS.withName("dbrec")).withName("marrow_cq_view");

    public static final StructLayout QP_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            JAVA_INT.withName("log_sq_wqebb_cnt"),
            JAVA_INT.withName("log_rq_wqe_cnt"),
            JAVA_INT.withName("max_rq_sge"),
            JAVA_INT.withName("max_inline_data"),
            JAVA_INT.withName("access"),
            JAVA_INT.withName("reserved")).withName("marrow_emu_qp_attr");

    public static final StructLayout QP_VIEW = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("qpn"),
            JAVA_INT.withName("sq_wqe_cnt"),
            JAVA_INT.withName("sq_stride"),
            JAVA_INT.withName("rq_wqe_cnt"),
            JAVA_INT.withName("rq_stride"),
            JAVA_INT.withName("max_inline_data"),
            ADDRESS.withName("sq_buf"),
            ADDRESS.withName("rq_buf"),
            ADDRESS.withName("dbrec"),
            ADDRESS.withName("uar"),
            JAVA_LONG.withName("uar_size")).withName("marrow_qp_view");

    public static final StructLayout BENCH_RESULT = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_LONG.withName("messages"),
            JAVA_LONG.withName("doorbells"),
            JAVA_LONG.withName("elapsed_ns"),
            JAVA_LONG.withName("cqes")).withName("marrow_emu_bench_result");

    public static final List<StructLayout> ALL = List.of(DEVICE_ATTR, CQ_ATTR, CQ_VIEW, QP_ATTR, QP_VIEW, BENCH_RESULT);
}
