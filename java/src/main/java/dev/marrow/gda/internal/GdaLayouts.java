// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.internal;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Java mirrors of the structs in marrow_gda.h, named as in C for the ABI handshake. */
public final class GdaLayouts {
    private GdaLayouts() {
    }

    public static final StructLayout ENDPOINT = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("placement"),
            JAVA_INT.withName("lkey"),
            ADDRESS.withName("qp"),
            ADDRESS.withName("cq"),
            JAVA_LONG.withName("local_addr"),
            JAVA_LONG.withName("local_len"),
            JAVA_LONG.withName("inbox_addr"),
            JAVA_LONG.withName("remote_addr"),
            JAVA_LONG.withName("remote_len"),
            JAVA_INT.withName("rkey"),
            JAVA_INT.withName("flags")).withName("marrow_gda_endpoint");

    public static final StructLayout CONFIG = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("experiment"),
            JAVA_INT.withName("ordering"),
            JAVA_INT.withName("payload"),
            JAVA_INT.withName("msg_size"),
            JAVA_LONG.withName("iters"),
            JAVA_LONG.withName("warmup"),
            JAVA_LONG.withName("timeout_ns"),
            JAVA_INT.withName("cuda_device"),
            JAVA_INT.withName("reserved")).withName("marrow_gda_config");

    public static final StructLayout RESULT = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_LONG.withName("iters_done"),
            JAVA_LONG.withName("posts"),
            JAVA_LONG.withName("doorbells"),
            JAVA_LONG.withName("cqes"),
            JAVA_LONG.withName("peer_posts"),
            JAVA_LONG.withName("payload_errors"),
            JAVA_LONG.withName("timed_ns"),
            JAVA_LONG.withName("timed_cycles"),
            JAVA_INT.withName("wqebbs_per_wqe"),
            JAVA_INT.withName("ds"),
            JAVA_INT.withName("status"),
            JAVA_INT.withName("fail_iter"),
            JAVA_INT.withName("cqe_opcode"),
            JAVA_INT.withName("cqe_syndrome"),
            JAVA_INT.withName("cqe_vendor_syndrome"),
            JAVA_INT.withName("cqe_wqe_counter"),
            JAVA_INT.withName("expected_wqe_counter"),
            JAVA_INT.withName("cuda_error")).withName("marrow_gda_result");

    public static final List<StructLayout> ALL = List.of(ENDPOINT, CONFIG, RESULT);

    public static long off(StructLayout s, String field) {
        return s.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }
}
