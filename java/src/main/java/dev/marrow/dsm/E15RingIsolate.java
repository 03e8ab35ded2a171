// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * E15: where does the 16-SM TMA ring lose its ~10 %? E7 gives 20.6
 * B/SM-cycle for rings of 2-8 SMs but 18.9 for 16, while E10's 8 senders
 * to 8 distinct receivers keep 21.3. Here every ring runs inside one 16-CTA
 * cluster (the cluster shape fixed) over k SMs chosen by %smid: the k lowest
 * (packed, k = 8, 12, 14, 16) or every other one (spread, k = 8), each
 * sending to the next SM of the ring in %smid order; plus E7's ring in rank
 * order over all 16 and, for the cluster shape alone, a ring of 8 in an
 * 8-CTA cluster. Each receiver is fitted on its own clock; the slowest
 * receivers are named by %smid, so a loss confined to a group of SMs
 * (e.g. a CPC whose six SMs all send) shows in which receivers fall.
 */
public final class E15RingIsolate implements Experiment {
    static final int N = 16;
    static final int[] PACKED = {8, 12, 14, 16};

    public String id() {
        return "E15";
    }

    public String name() {
        return "ring16-isolate";
    }

    public String title() {
        return "TMA rings inside one 16-CTA cluster over k = 8..16 SMs by %smid (packed/spread): per-SM 1/beta and slowest receivers";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        Launch probe = ctx.collect(Spec.idle("placement probe", N), 512, 1).accepted().getFirst();
        Integer[] bySmid = new Integer[N];
        for (int r = 0; r < N; r++) {
            bySmid[r] = r;
        }
        Arrays.sort(bySmid, Comparator.comparingInt(r -> probe.rank(r).smidStart()));
        double base = Double.NaN;
        for (int k : PACKED) {
            int[] ring = new int[k];
            for (int i = 0; i < k; i++) {
                ring[i] = bySmid[i];
            }
            double rate = ring(ctx, out, "packed", k, N, ring, probe);
            if (k == 8) {
                base = rate;
            }
        }
        int[] spread = new int[8];
        for (int i = 0; i < 8; i++) {
            spread[i] = bySmid[2 * i];
        }
        ring(ctx, out, "spread", 8, N, spread, probe);
        int[] rankOrder = new int[N];
        for (int r = 0; r < N; r++) {
            rankOrder[r] = r;
        }
        double rank16 = ring(ctx, out, "rank order", N, N, rankOrder, probe);
        int[] small = {0, 1, 2, 3, 4, 5, 6, 7};
        double cl8 = ring(ctx, out, "rank order, cluster 8", 8, 8, small, null);
        out.add(Report.record(ctx, id(), "summary", "ring 16 isolation")
                .metric("packed8_b_per_cycle", Report.round(base, 3))
                .metric("rank_order16_b_per_cycle", Report.round(rank16, 3))
                .metric("cluster8_ring8_b_per_cycle", Report.round(cl8, 3))
                .metric("loss16_vs_packed8_pct", Report.round(100 * (1 - rank16 / base), 2))
                .metric("reference_per_sm_b_per_cycle", Reference.RING_PER_SM.value())
                .metric("reference_source", Reference.RING_PER_SM.source()));
        return out;
    }

    /** One ring ring[0] -> ring[1] -> ... -> ring[0]; returns the mean per-receiver 1/beta. */
    private double ring(DsmContext ctx, List<ResultRecord> out, String layout, int k, int n, int[] ring, Launch probe) {
        String name = "tma ring " + layout + " k=" + k;
        Spec spec = Spec.idle(name, n);
        List<Stream> streams = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            int src = ring[i];
            int dst = ring[(i + 1) % k];
            spec = spec.tma(src, dst);
            streams.add(Stream.tma(src, dst, "tma " + src + "->" + dst));
        }
        Sweep.Result res = Sweep.run(ctx, spec, streams);
        double mean = 0;
        double[] rates = new double[k];
        StringBuilder perReceiver = new StringBuilder();
        for (int i = 0; i < k; i++) {
            SeriesFit f = res.fit(streams.get(i).label());
            rates[i] = f.bytesPerCycle();
            mean += rates[i] / k;
            out.add(Report.fit(ctx, id(), spec, f, null).param("layout", layout).param("k", k));
        }
        Integer[] order = new Integer[k];
        for (int i = 0; i < k; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble(i -> rates[i]));
        for (int j = 0; j < Math.min(4, k); j++) {
            int i = order[j];
            int dst = ring[(i + 1) % k];
            String where = probe != null ? "smid " + probe.rank(dst).smidStart() : "rank " + dst;
            perReceiver.append(j == 0 ? "" : ", ").append(where).append(String.format(": %.2f", rates[i]));
        }
        ResultRecord s = Report.record(ctx, id(), "summary", name)
                .param("layout", layout).param("k", k).param("cluster_size", n)
                .param("placement", res.placement())
                .param("slowest_receivers", perReceiver.toString())
                .metric("per_sm_b_per_cycle", Report.round(mean, 3))
                .metric("min_sm_b_per_cycle", Report.round(Spread.min(rates), 3))
                .metric("max_sm_b_per_cycle", Report.round(Spread.max(rates), 3));
        Report.reference(s, "per_sm_b_per_cycle", mean, Reference.RING_PER_SM);
        out.add(s);
        ctx.progress(String.format("E15 %s: %.2f B/SM-cycle (min %.2f); slowest %s", name, mean, Spread.min(rates),
                perReceiver));
        return mean;
    }
}
