// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.Stats;

import java.util.List;

/**
 * Aggregate rates of a set of TMA streams at one size, under each
 * definition the reference lists (the own definition of the study "How does Hopper distributed shared memory actually move data?" is ambiguous):
 * sum of per-stream end-to-end GB/s, the span definition N*B / (last end -
 * first start), and the sum of per-stream B/cycle on each receiver's clock.
 * Each is the median over launches of the per-launch value.
 */
public record Aggregate(double sumE2eGbS, double spanGbS, double sumE2eBPerCycle, int launches) {

    public static Aggregate of(List<Launch> launches, int[] src, int[] dst) {
        int n = launches.size();
        double[] e2e = new double[n];
        double[] span = new double[n];
        double[] cyc = new double[n];
        for (int k = 0; k < n; k++) {
            Launch l = launches.get(k);
            double bytes = l.tileBytes();
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (int i = 0; i < src.length; i++) {
                Sample s = l.rank(src[i]);
                Sample d = l.rank(dst[i]);
                e2e[k] += bytes / (d.gtRecvEnd() - s.gtStart());
                cyc[k] += bytes / (double) (d.clkRecvEnd() - d.clkStart());
                first = Math.min(first, s.gtStart());
                last = Math.max(last, d.gtRecvEnd());
            }
            span[k] = src.length * bytes / (last - first);
        }
        return new Aggregate(Stats.median(e2e), Stats.median(span), Stats.median(cyc), n);
    }
}
