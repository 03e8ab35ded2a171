// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.internal;

import dev.marrow.fabric.internal.EndpointLayout;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.StructLayout;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static dev.marrow.internal.ffi.CStruct.ptr;

/**
 * The structs of marrow_gda.h as libmarrow_host.so describes them
 * ({@link CStruct}); libmarrow_cuda.so's table lists the same structs and is
 * checked against these when it loads.
 */
public final class GdaLayouts {
    private GdaLayouts() {
    }

    private static final NativeLib LIB = NativeLib.shared("host");

    /** Defined by the fabric, which fills it (fabric/internal/EndpointLayout.java). */
    public static final StructLayout ENDPOINT = EndpointLayout.ENDPOINT;

    public static final StructLayout CONFIG = layout(LIB, "marrow_gda_config",
            i32("experiment"), i32("ordering"), i32("payload"), i32("msg_size"), i64("iters"), i64("warmup"),
            i64("timeout_ns"), i32("cuda_device"), i32("responder_delay_ns"));

    public static final StructLayout RESULT = layout(LIB, "marrow_gda_result",
            i64("iters_done"), i64("posts"), i64("doorbells"), i64("cqes"), i64("peer_posts"), i64("payload_errors"),
            i64("timed_ns"), i64("timed_cycles"), i32("wqebbs_per_wqe"), i32("ds"), i32("status"), i32("fail_iter"),
            i32("cqe_opcode"), i32("cqe_syndrome"), i32("cqe_vendor_syndrome"), i32("cqe_wqe_counter"),
            i32("expected_wqe_counter"), i32("cuda_error"));

    public static final List<StructLayout> ALL = List.of(ENDPOINT, CONFIG, RESULT);

    /** Byte offset of a field ({@link CStruct#offset}). */
    public static long off(StructLayout s, String field) {
        return CStruct.offset(s, field);
    }
}
