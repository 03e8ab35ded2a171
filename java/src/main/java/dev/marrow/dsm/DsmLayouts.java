// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.StructLayout;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.bytes;
import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.ints;
import static dev.marrow.internal.ffi.CStruct.layout;

/**
 * The structs of marrow_dsm.h as libmarrow_cuda.so describes them
 * ({@link CStruct}): Java names the fields it uses, C places them. Loading
 * this class loads the library (no GPU needed).
 */
public final class DsmLayouts {
    private DsmLayouts() {
    }

    /**
     * MARROW_DSM_MAX_RANKS: ranks of a cluster the suite describes. Java's
     * experiment specs are built without the library (tests run them on a
     * synthetic device), so this value is Java's; {@link DsmFfi} refuses a
     * library whose value differs.
     */
    public static final int MAX_RANKS = 16;

    private static final NativeLib LIB = NativeLib.shared("cuda");

    public static final StructLayout DEVICE_INFO = layout(LIB, "marrow_dsm_device_info",
            i32("ordinal"), i32("cc_major"), i32("cc_minor"), i32("sm_count"), i32("max_smem_optin"), i32("smem_per_cta"),
            i32("clock_rate_khz"), i32("driver_version"), i32("runtime_version"), ints("max_active_clusters"),
            bytes("name"));

    public static final StructLayout TIMER_INFO = layout(LIB, "marrow_dsm_timer_info",
            i64("gt_min_step_ns"), i64("gt_steps"), i64("clk_delta"), i64("gt_delta_ns"), i32("smid"), i32("reads"));

    public static final StructLayout PARAMS = layout(LIB, "marrow_dsm_params",
            i32("device"), i32("cluster_size"), i32("tile_bytes"), i32("reps"), i32("warmup"), i32("group_threads"),
            i32("tma_chunk_bytes"), i32("run_id"), i32("timeout_ms"), i32("load_kernel"), i64("wait_budget_cycles"),
            bytes("load_from"), bytes("store_to"), bytes("tma_to"), i32("store_width"), i32("load_width"),
            // appended for the probes (E11-E15): Probe
            i32("remote_offset"), i32("pressure_warps"), i32("pressure_ranks"), i32("pressure_pattern"), i32("bursts"),
            i32("store_kernel"), i64("burst_gap_cycles"), i64("pressure_cycles"), i32("store_unroll"), i32("store_end"),
            i32("probe_build"));

    public static final StructLayout SAMPLE = layout(LIB, "marrow_dsm_sample",
            i32("rep"), i32("rank"), i32("smid_start"), i32("smid_end"), i32("flags"), i32("roles"), i64("clk_start"),
            i64("gt_start"), i64("clk_load_end"), i64("gt_load_end"), i64("clk_store_end"), i64("gt_store_end"),
            i64("clk_recv_end"), i64("gt_recv_end"), i64("clk_tma_issued"), i64("wait_polls"), i64("load_sum"),
            i64("load_expect"), i64("recv_sum"), i64("recv_expect"),
            // appended for the probes
            i64("pressure_ops"), i64("burst_busy_cycles"), i64("burst_first_cycles"), i64("burst_min_cycles"));

    public static final StructLayout LAT_PARAMS = layout(LIB, "marrow_dsm_lat_params",
            i32("device"), i32("cluster_size"), i32("hops"), i32("reps"), i32("stride_words"), i32("timeout_ms"));

    public static final StructLayout LAT_SAMPLE = layout(LIB, "marrow_dsm_lat_sample",
            i32("rep"), i32("src"), i32("dst"), i32("smid_src"), i32("smid_dst"), i32("flags"), i64("cycles"),
            i64("final_index"), i64("expect_index"));

    public static final List<StructLayout> ALL = List.of(DEVICE_INFO, TIMER_INFO, PARAMS, SAMPLE, LAT_PARAMS, LAT_SAMPLE);

    /** Byte offset of a member ({@link CStruct#offset}). */
    public static long offset(StructLayout s, String field) {
        return CStruct.offset(s, field);
    }
}
