// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the result records of the DSM experiments. Every record carries a
 * "row" parameter: "fit" (one stream's affine fit), "point" (one size of a
 * fit, for plots), "summary" (a derived figure) or "info" (E0/E1 facts).
 * Reference values go into reference_* metrics with their source; the
 * deviation from them is vs_reference_pct.
 */
public final class Report {
    private Report() {
    }

    public static final String PREFIX = "dsm.";

    public static ResultRecord record(DsmContext ctx, String experiment, String row, String series) {
        return new ResultRecord(PREFIX + experiment, ctx.device().backend(), ctx.device().hardware())
                .param("row", row).param("series", series);
    }

    /** The fit of one stream: 1/beta in B/cycle and GB/s, alpha, RMSE share, clock from the slope ratio. */
    public static ResultRecord fit(DsmContext ctx, String experiment, Spec spec, SeriesFit f, Reference.Ref ref) {
        ResultRecord r = record(ctx, experiment, "fit", f.label())
                .param("cluster_size", spec.clusterSize())
                .param("active_sms", spec.activeRanks())
                .param("group_threads", ctx.device().groupThreads())
                .param("tma_chunk_bytes", ctx.device().tmaChunkBytes())
                .param("load_kernel", ctx.device().loadKernel().label())
                .param("store_width", ctx.device().storeWidth())
                .param("load_width", ctx.device().loadWidth())
                .param("sizes_bytes", f.bytes()[0] + ".." + f.bytes()[f.bytes().length - 1]);
        r.metric("inv_beta_b_per_cycle", round(f.bytesPerCycle(), 3))
                .metric("inv_beta_gb_s", round(f.gbPerS(), 3))
                .metric("alpha_cycles", round(f.cycles().alpha(), 1))
                .metric("alpha_ns", round(f.ns().alpha(), 1))
                .metric("rmse_cycles", round(f.cycles().rmse(), 2))
                .metric("rmse_share_of_rise_cycles_pct", round(100 * f.cycles().rmseShareOfRise(), 3))
                .metric("rmse_share_of_rise_ns_pct", round(100 * f.ns().rmseShareOfRise(), 3))
                .metric("r2_cycles", round(f.cycles().r2(), 6))
                .metric("r2_ns", round(f.ns().r2(), 6))
                .metric("eff_clock_ghz", round(f.clockGhz(), 4))
                .metric("accepted_runs", f.accepted())
                .metric("rejected_runs", f.rejected());
        if (ref != null) {
            reference(r, "inv_beta_b_per_cycle", f.bytesPerCycle(), ref);
        }
        return r;
    }

    /** One record per size: median cycles/ns, the fitted value and the residual (for plots). */
    public static List<ResultRecord> points(DsmContext ctx, String experiment, SeriesFit f) {
        List<ResultRecord> l = new ArrayList<>();
        for (int i = 0; i < f.bytes().length; i++) {
            double b = f.bytes()[i];
            l.add(record(ctx, experiment, "point", f.label())
                    .param("size_bytes", (long) b)
                    .metric("median_cycles", round(f.medianCycles()[i], 1))
                    .metric("median_ns", round(f.medianNs()[i], 1))
                    .metric("fit_cycles", round(f.cycles().predict(b), 1))
                    .metric("residual_cycles", round(f.cycles().residuals()[i], 2))
                    .metric("fit_ns", round(f.ns().predict(b), 1))
                    .metric("residual_ns", round(f.ns().residuals()[i], 2)));
        }
        return l;
    }

    /** Adds reference_{name}, its unit and source, and our deviation from it in percent. */
    public static ResultRecord reference(ResultRecord r, String name, double ours, Reference.Ref ref) {
        return r.metric("reference_" + name, ref.value())
                .metric("reference_source", ref.source())
                .metric("vs_reference_pct", round(100.0 * (ours - ref.value()) / ref.value(), 1));
    }

    public static double round(double v, int digits) {
        return Double.isFinite(v) ? ResultRecord.round(v, digits) : v;
    }
}
