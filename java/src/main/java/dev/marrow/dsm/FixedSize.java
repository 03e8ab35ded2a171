// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.Stats;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One configuration at one tile size (E11's offsets, E12's pressure levels):
 * the median over accepted launches of a stream's cycles and ns, plus the
 * accepted launches themselves for further per-launch figures.
 */
public record FixedSize(double medianCycles, double medianNs, List<Launch> launches, int rejected) {

    public static FixedSize measure(DsmContext ctx, Spec spec, int tileBytes, Stream stream) {
        DsmContext.Collected c = ctx.collect(spec, tileBytes);
        List<Launch> ok = c.accepted();
        return new FixedSize(median(ok, stream::cycles), median(ok, stream::ns), ok, c.rejected());
    }

    /** Median over the accepted launches of any per-launch figure. */
    public double median(ToDoubleFunction<Launch> f) {
        return median(launches, f);
    }

    private static double median(List<Launch> l, ToDoubleFunction<Launch> f) {
        double[] v = new double[l.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = f.applyAsDouble(l.get(i));
        }
        return Stats.median(v);
    }
}
