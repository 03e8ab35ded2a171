// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * E1: placement and the load-latency matrix. One thread per CTA chases 1024
 * dependent ld.shared::cluster.u32 through each rank's ring (itself too), in
 * clusters of 16 and of 2, 5 launches each (the context's chase: `dsm run
 * --sanitize` asks for a much shorter one).
 */
public final class E1Latency implements Experiment {
    public String id() {
        return "E1";
    }

    public String name() {
        return "latency";
    }

    public String title() {
        return "rank->SM placement and the DSM load-latency matrix (cluster 16 and 2)";
    }

    /** The 16-rank matrix, measured once per context (E9 correlates with it). */
    public static LatencyMatrix matrix(DsmContext ctx, int n) {
        return ctx.cached("E1:" + n, () -> LatencyMatrix.of(n, ctx.latency(n), ctx.latencyHops()));
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        for (int n : new int[] {16, 2}) {
            LatencyMatrix m = matrix(ctx, n);
            double[] remote = m.remote();
            double[] sorted = remote.clone();
            Arrays.sort(sorted);
            ResultRecord r = Report.record(ctx, id(), "summary", "latency cluster " + n)
                    .param("cluster_size", n)
                    .param("hops", ctx.latencyHops())
                    .param("launches", ctx.latencyLaunches())
                    .param("placement", placement(m.smid()))
                    .metric("self_cycles_per_hop", Report.round(m.self(), 1))
                    .metric("remote_min_cycles_per_hop", Report.round(sorted[0], 1))
                    .metric("remote_median_cycles_per_hop", Report.round(Stats.median(remote), 1))
                    .metric("remote_max_cycles_per_hop", Report.round(sorted[sorted.length - 1], 1))
                    .metric("max_asymmetry_cycles", Report.round(m.maxAsymmetry(), 1))
                    .metric("ranks_with_tpc_partner", m.ranksWithTpcPartner())
                    .metric("accepted_chases", m.accepted())
                    .metric("rejected_chases", m.rejected());
            if (n >= 3) {
                r.metric("additive_fit_rmse_cycles", Report.round(m.additiveRmse(), 2));
            }
            r.metric("reference_self_cycles_per_hop", Reference.LAT_SELF.value());
            if (n == 2) {
                r.metric("reference_remote_cycles_per_hop", Reference.LAT_CL2.value());
            } else {
                r.metric("reference_remote_min_cycles_per_hop", Reference.LAT_REMOTE_MIN.value());
                r.metric("reference_remote_max_cycles_per_hop", Reference.LAT_REMOTE_MAX.value());
            }
            r.metric("reference_source", Reference.LUO + " (different GPU: H800 PCIe)");
            out.add(r);
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    out.add(Report.record(ctx, id(), "pair", "latency cluster " + n)
                            .param("src", i).param("dst", j)
                            .param("smid_src", m.smid()[i]).param("smid_dst", m.smid()[j])
                            .metric("cycles_per_hop", Report.round(m.cyclesPerHop()[i][j], 2)));
                }
            }
            ctx.progress(String.format("E1 cluster %d: self %.1f, remote %.1f..%.1f cycles/hop; placement %s",
                    n, m.self(), sorted[0], sorted[sorted.length - 1], placement(m.smid())));
        }
        return out;
    }

    static String placement(int[] smid) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < smid.length; i++) {
            sb.append(i == 0 ? "" : " ").append(i).append(':').append(smid[i]);
        }
        return sb.toString();
    }
}
