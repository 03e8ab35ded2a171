// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Downcall handles for libmarrow_emu.so (marrow_softnic.h), one static final
 * field each so C2 can inline them. Loading this class loads the library and
 * runs the full ABI handshake; touch it only after {@code Backend.SOFTNIC}
 * reported itself available.
 */
public final class EmuFfi {
    private EmuFfi() {
    }

    public static final NativeLib LIB = load();

    private static NativeLib load() {
        NativeLib lib = NativeLib.shared("emu");
        EmuLayouts.ALL.size(); // the layouts come from this library; building them is the layout handshake
        lib.verifyConstants(java.util.Arrays.stream(dev.marrow.api.Status.values())
                .map(s -> CEnum.named(dev.marrow.api.Status.COMPONENT, s.cName())).toArray(CEnum[]::new));
        return lib;
    }

    private static MethodHandle h(String name, FunctionDescriptor fd, Linker.Option... o) {
        return LIB.handle(name, fd, o);
    }

    private static final FunctionDescriptor I_P = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    private static final FunctionDescriptor I_PP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    private static final FunctionDescriptor I_PPPP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS);

    /** marrow_emu_check_log_sq (marrow_abi.h): the SQ-size range of every backend, in C. */
    public static final MethodHandle CHECK_LOG_SQ = h("marrow_emu_check_log_sq", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    public static final MethodHandle DEVICE_OPEN = h("marrow_emu_device_open", I_PP);
    public static final MethodHandle DEVICE_CLOSE = h("marrow_emu_device_close", I_P);
    /** Wire model (docs/design/wire-model.md). */
    public static final MethodHandle WIRE_IB_DEFAULTS = h("marrow_emu_wire_ib_defaults",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    public static final MethodHandle WIRE_TIME_PS = h("marrow_emu_wire_time_ps",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_INT));
    public static final MethodHandle DEVICE_SET_WIRE = h("marrow_emu_device_set_wire", I_PP);
    public static final MethodHandle WIRE_STATS = h("marrow_emu_wire_stats",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    public static final MethodHandle ENGINE_PAUSE = h("marrow_emu_engine_pause", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    public static final MethodHandle ENGINE_PIN = h("marrow_emu_engine_pin", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    public static final MethodHandle PD_ALLOC = h("marrow_emu_pd_alloc", I_PP);
    public static final MethodHandle PD_FREE = h("marrow_emu_pd_free", I_P);
    public static final MethodHandle MR_REG = h("marrow_emu_mr_reg",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    public static final MethodHandle MR_DEREG = h("marrow_emu_mr_dereg", I_P);
    public static final MethodHandle CQ_CREATE = h("marrow_emu_cq_create", I_PPPP);
    public static final MethodHandle CQ_DESTROY = h("marrow_emu_cq_destroy", I_P);
    public static final MethodHandle QP_CREATE = h("marrow_emu_qp_create", I_PPPP);
    public static final MethodHandle QP_DESTROY = h("marrow_emu_qp_destroy", I_P);
    public static final MethodHandle QP_MODIFY = h("marrow_emu_qp_modify",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    public static final MethodHandle QP_STATE = h("marrow_emu_qp_state", I_PP);
    public static final MethodHandle QP_SET_ENGINE = h("marrow_emu_qp_set_engine",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    public static final MethodHandle QP_ENGINE = h("marrow_emu_qp_engine", I_PP);
    public static final MethodHandle QP_DUMP = h("marrow_emu_qp_dump",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    public static final MethodHandle COUNTER_COUNT = h("marrow_emu_counter_count", FunctionDescriptor.of(JAVA_INT));
    public static final MethodHandle COUNTER_NAME = h("marrow_emu_counter_name", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    public static final MethodHandle COUNTERS_READ = h("marrow_emu_counters_read",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    public static final MethodHandle BENCH_RATE = h("marrow_emu_bench_rate",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS));
    public static final MethodHandle BENCH_SET_BUDGET = h("marrow_emu_bench_set_budget",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    public static final MethodHandle BENCH_LATENCY = h("marrow_emu_bench_latency",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS));
    public static final MethodHandle BENCH_ENCODE = h("marrow_emu_bench_encode",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    // The shared-memory wire between two processes (marrow_shmwire.h).
    public static final MethodHandle WIRE_CREATE = h("marrow_emu_wire_create",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    public static final MethodHandle WIRE_NAME = h("marrow_emu_wire_name",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    public static final MethodHandle WIRE_ALLOC = h("marrow_emu_wire_alloc",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    public static final MethodHandle WIRE_EXPORT_MR = h("marrow_emu_wire_export_mr", I_PP);
    public static final MethodHandle WIRE_UNEXPORT_MR = h("marrow_emu_wire_unexport_mr", I_PP);
    public static final MethodHandle WIRE_EXPORT_QP = h("marrow_emu_wire_export_qp", I_PP);
    public static final MethodHandle WIRE_UNEXPORT_QP = h("marrow_emu_wire_unexport_qp", I_PP);
    public static final MethodHandle WIRE_UNLINK = h("marrow_emu_wire_unlink", I_P);
    public static final MethodHandle WIRE_CLOSE = h("marrow_emu_wire_close", I_P);
    public static final MethodHandle WIRE_ATTACH = h("marrow_emu_wire_attach",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    public static final MethodHandle WIRE_PEER_ALIVE = h("marrow_emu_wire_peer_alive", I_PP);
    public static final MethodHandle WIRE_DETACH = h("marrow_emu_wire_detach", I_P);
    public static final MethodHandle QP_CONNECT_WIRE = h("marrow_emu_qp_connect_wire",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    /** Empty C function: the FFM overhead baseline. Default and critical linkage. */
    public static final MethodHandle NOOP = h("marrow_emu_noop", FunctionDescriptor.of(JAVA_INT));
    public static final MethodHandle NOOP_CRITICAL = h("marrow_emu_noop", FunctionDescriptor.of(JAVA_INT),
            Linker.Option.critical(false));
}
