// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Java mirrors of the structs in marrow_dsm.h. Struct and member names are
 * the C names, so the load-time handshake can ask the library for each
 * offset; a mismatch refuses to run rather than misreading a field.
 */
public final class DsmLayouts {
    private DsmLayouts() {
    }

    /** MARROW_DSM_MAX_RANKS. */
    public static final int MAX_RANKS = 16;

    public static final StructLayout DEVICE_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("ordinal"),
            JAVA_INT.withName("cc_major"),
            JAVA_INT.withName("cc_minor"),
            JAVA_INT.withName("sm_count"),
            JAVA_INT.withName("max_smem_optin"),
            JAVA_INT.withName("smem_per_cta"),
            JAVA_INT.withName("clock_rate_khz"),
            JAVA_INT.withName("driver_version"),
            JAVA_INT.withName("runtime_version"),
            MemoryLayout.sequenceLayout(4, JAVA_INT).withName("max_active_clusters"),
            JAVA_INT.withName("reserved"),
            MemoryLayout.sequenceLayout(128, JAVA_BYTE).withName("name")).withName("marrow_dsm_device_info");

    public static final StructLayout TIMER_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_LONG.withName("gt_min_step_ns"),
            JAVA_LONG.withName("gt_steps"),
            JAVA_LONG.withName("clk_delta"),
            JAVA_LONG.withName("gt_delta_ns"),
            JAVA_INT.withName("smid"),
            JAVA_INT.withName("reads")).withName("marrow_dsm_timer_info");

    public static final StructLayout PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("device"),
            JAVA_INT.withName("cluster_size"),
            JAVA_INT.withName("tile_bytes"),
            JAVA_INT.withName("reps"),
            JAVA_INT.withName("warmup"),
            JAVA_INT.withName("group_threads"),
            JAVA_INT.withName("tma_chunk_bytes"),
            JAVA_INT.withName("run_id"),
            JAVA_INT.withName("timeout_ms"),
            JAVA_INT.withName("load_kernel"),
            JAVA_LONG.withName("wait_budget_cycles"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_BYTE).withName("load_from"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_BYTE).withName("store_to"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_BYTE).withName("tma_to"),
            JAVA_INT.withName("store_width"),
            JAVA_INT.withName("load_width"),
            // appended for the probes (E11-E15): Probe
            JAVA_INT.withName("remote_offset"),
            JAVA_INT.withName("pressure_warps"),
            JAVA_INT.withName("pressure_ranks"),
            JAVA_INT.withName("pressure_pattern"),
            JAVA_INT.withName("bursts"),
            JAVA_INT.withName("store_kernel"),
            JAVA_LONG.withName("burst_gap_cycles"),
            JAVA_LONG.withName("pressure_cycles"),
            JAVA_INT.withName("store_unroll"),
            JAVA_INT.withName("store_end"),
            JAVA_INT.withName("probe_build"),
            JAVA_INT.withName("reserved2")).withName("marrow_dsm_params");

    public static final StructLayout SAMPLE = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("rep"),
            JAVA_INT.withName("rank"),
            JAVA_INT.withName("smid_start"),
            JAVA_INT.withName("smid_end"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("roles"),
            JAVA_LONG.withName("clk_start"),
            JAVA_LONG.withName("gt_start"),
            JAVA_LONG.withName("clk_load_end"),
            JAVA_LONG.withName("gt_load_end"),
            JAVA_LONG.withName("clk_store_end"),
            JAVA_LONG.withName("gt_store_end"),
            JAVA_LONG.withName("clk_recv_end"),
            JAVA_LONG.withName("gt_recv_end"),
            JAVA_LONG.withName("clk_tma_issued"),
            JAVA_LONG.withName("wait_polls"),
            JAVA_LONG.withName("load_sum"),
            JAVA_LONG.withName("load_expect"),
            JAVA_LONG.withName("recv_sum"),
            JAVA_LONG.withName("recv_expect"),
            // appended for the probes
            JAVA_LONG.withName("pressure_ops"),
            JAVA_LONG.withName("burst_busy_cycles"),
            JAVA_LONG.withName("burst_first_cycles"),
            JAVA_LONG.withName("burst_min_cycles")).withName("marrow_dsm_sample");

    public static final StructLayout LAT_PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("device"),
            JAVA_INT.withName("cluster_size"),
            JAVA_INT.withName("hops"),
            JAVA_INT.withName("reps"),
            JAVA_INT.withName("stride_words"),
            JAVA_INT.withName("reserved")).withName("marrow_dsm_lat_params");

    public static final StructLayout LAT_SAMPLE = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("rep"),
            JAVA_INT.withName("src"),
            JAVA_INT.withName("dst"),
            JAVA_INT.withName("smid_src"),
            JAVA_INT.withName("smid_dst"),
            JAVA_INT.withName("flags"),
            JAVA_LONG.withName("cycles"),
            JAVA_LONG.withName("final_index"),
            JAVA_LONG.withName("expect_index")).withName("marrow_dsm_lat_sample");

    public static final List<StructLayout> ALL = List.of(DEVICE_INFO, TIMER_INFO, PARAMS, SAMPLE, LAT_PARAMS, LAT_SAMPLE);

    /** Byte offset of a member, for reading a struct field by its C name. */
    public static long offset(StructLayout s, String field) {
        return s.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }
}
