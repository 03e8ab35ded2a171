// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/**
 * Published values we compare against. They are printed beside our numbers
 * as "reference_*", never used in any computation of ours. Sources:
 * STUDY = the blog study "How does Hopper distributed shared memory actually
 * move data?" (H200; no public raw data, so unverified); LUO = Luo et al.
 * (IPDPS'24, H800 PCIe); NVIDIA = documentation / forum statements.
 */
public final class Reference {
    private Reference() {
    }

    public static final String STUDY = "study (H200, blog; unverified)";
    public static final String LUO = "Luo et al. (H800 PCIe)";
    public static final String NVIDIA = "NVIDIA (docs/forum)";

    /** A published value with its unit and source. */
    public record Ref(double value, String unit, String source) {
    }

    // E0
    public static final Ref GLOBALTIMER_STEP = new Ref(32, "ns", NVIDIA + ", forum 323887");
    public static final Ref NOMINAL_CLOCK = new Ref(1.98, "GHz", NVIDIA + ", H200 SXM max");
    public static final Ref SMEM_OPTIN = new Ref(232448, "B", NVIDIA + ", sm_90 opt-in per block");
    // E1
    public static final Ref LAT_SELF = new Ref(33, "cycles", LUO);
    public static final Ref LAT_REMOTE_MIN = new Ref(180, "cycles", LUO + ", cluster 16");
    public static final Ref LAT_REMOTE_MAX = new Ref(213, "cycles", LUO + ", cluster 16");
    public static final Ref LAT_CL2 = new Ref(181, "cycles", LUO + ", cluster 2");
    // E2-E4 one-way, B/cycle per SM
    public static final Ref LOAD = new Ref(19.87, "B/cycle", STUDY);
    public static final Ref STORE = new Ref(18.87, "B/cycle", STUDY);
    public static final Ref TMA = new Ref(21.25, "B/cycle", STUDY);
    public static final Ref TMA_ALPHA_2SM = new Ref(1101, "cycles", STUDY);
    // E5 bidirectional, per direction
    public static final Ref BIDIR_LOAD = new Ref(15.37, "B/cycle", STUDY);
    public static final Ref BIDIR_STORE = new Ref(18.12, "B/cycle", STUDY);
    public static final Ref BIDIR_TMA = new Ref(20.29, "B/cycle", STUDY);
    // E6 mixed, aggregate B/cycle
    public static final Ref MIXED_LOAD_STORE_SAME = new Ref(21.38, "B/cycle", STUDY);
    public static final Ref MIXED_LOAD_TMA_SAME = new Ref(21.45, "B/cycle", STUDY);
    public static final Ref MIXED_LOAD_STORE_OPPOSITE = new Ref(29.70, "B/cycle", STUDY);
    public static final Ref MIXED_LOAD_TMA_OPPOSITE = new Ref(29.26, "B/cycle", STUDY);
    // E7 ring
    public static final Ref RING_PER_SM = new Ref(21.0, "B/cycle", STUDY + ", about 21");
    public static final Ref RING_ALPHA_2 = new Ref(1101, "cycles", STUDY);
    public static final Ref RING_ALPHA_16 = new Ref(5256, "cycles", STUDY);
    // E8
    public static final Ref STRIDE_BEST = new Ref(372.4, "GB/s", STUDY + ", aggregate at 64 KiB");
    public static final Ref STRIDE_WORST = new Ref(344.9, "GB/s", STUDY + ", aggregate at 64 KiB");
    public static final Ref PAIRS_VS_RING = new Ref(11, "% faster than the median ring", STUDY + ", about 11%");
    // E9
    public static final Ref PAIR_MIN = new Ref(31.51, "GB/s", STUDY + ", end-to-end at 64 KiB");
    public static final Ref PAIR_MAX = new Ref(32.00, "GB/s", STUDY + ", end-to-end at 64 KiB");
    // E10
    public static final Ref MODEL_PER_SM = new Ref(128.0 / 6.0, "B/cycle", STUDY + ", model 4 x 32 B per 6 SMs");
    // E11-E16 (the probes)
    public static final Ref OFFSET_SPREAD = new Ref(0.39, "% change in cycles", STUDY
            + ", 32-B remote address offset scanned over 4 KiB");
    public static final Ref PRESSURE_MIN = new Ref(3628, "cycles", STUDY
            + ", remote-load completion with up to 16 warps of local shared-memory pressure");
    public static final Ref PRESSURE_MAX = new Ref(3633, "cycles", STUDY
            + ", remote-load completion with up to 16 warps of local shared-memory pressure");
    public static final Ref BURST_CEILING = new Ref(21.3, "B/cycle", STUDY
            + ", no material temporary rate above it for cold commands, trains or separated bursts");
    /** The study's one-way load and duplex read with the digits its model arithmetic uses. */
    public static final Ref MODEL_LOAD_ONE_WAY = new Ref(19.874, "B/cycle", STUDY + ", model input");
    public static final Ref MODEL_LOAD_DUPLEX = new Ref(15.372, "B/cycle", STUDY + ", measured duplex read");
    public static final Ref MODEL_DUPLEX_PREDICTED = new Ref(15.90, "B/cycle", STUDY
            + ", 128-B response + one 32-B command flit, scaled by one-way utilisation");
    public static final Ref MODEL_CYCLES_PER_128_ONE_WAY = new Ref(6.441, "cycles per 128 B", STUDY);
    public static final Ref MODEL_CYCLES_PER_128_DUPLEX = new Ref(8.327, "cycles per 128 B", STUDY);
}
