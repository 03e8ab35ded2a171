// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The size sweep behind every slope: for each tile size collect the
 * accepted launches, read each stream's per-run time, take per-size medians
 * and fit them (SeriesFit). All streams of a spec come from the same launches.
 */
public final class Sweep {
    private Sweep() {
    }

    /** Result of one sweep: a fit per stream plus the placement of the first launch. */
    public record Result(Spec spec, Map<String, SeriesFit> fits, String placement) {
        public SeriesFit fit(String label) {
            SeriesFit f = fits.get(label);
            if (f == null) {
                throw new IllegalArgumentException("no stream '" + label + "' in " + spec);
            }
            return f;
        }
    }

    public static Result run(DsmContext ctx, Spec spec, List<Stream> streams) {
        return ctx.cached("sweep:" + spec.name() + ":" + spec.clusterSize() + ":" + spec.probe() + ":" + labels(streams),
                () -> measure(ctx, spec, streams, ctx.sizes()));
    }

    static Result measure(DsmContext ctx, Spec spec, List<Stream> streams, int[] sizes) {
        int k = streams.size();
        double[] bytes = new double[sizes.length];
        double[][][] cyc = new double[k][sizes.length][];
        double[][][] ns = new double[k][sizes.length][];
        int accepted = 0;
        int rejected = 0;
        String placement = "";
        for (int i = 0; i < sizes.length; i++) {
            bytes[i] = sizes[i];
            DsmContext.Collected c = ctx.collect(spec, sizes[i]);
            accepted += c.accepted().size();
            rejected += c.rejected();
            if (placement.isEmpty()) {
                placement = c.accepted().getFirst().placement();
            }
            for (int s = 0; s < k; s++) {
                cyc[s][i] = new double[c.accepted().size()];
                ns[s][i] = new double[c.accepted().size()];
                for (int j = 0; j < c.accepted().size(); j++) {
                    Launch l = c.accepted().get(j);
                    cyc[s][i][j] = streams.get(s).cycles(l);
                    ns[s][i][j] = streams.get(s).ns(l);
                }
            }
        }
        ctx.progress(spec + ": " + accepted + " accepted, " + rejected + " rejected launches");
        Map<String, SeriesFit> fits = new LinkedHashMap<>();
        for (int s = 0; s < k; s++) {
            String label = streams.get(s).label();
            fits.put(label, SeriesFit.of(label, bytes, cyc[s], ns[s], accepted, rejected));
        }
        return new Result(spec, fits, placement);
    }

    private static String labels(List<Stream> streams) {
        List<String> l = new ArrayList<>();
        for (Stream s : streams) {
            l.add(s.label());
        }
        return String.join(",", l);
    }
}
