// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Any experiment the report has no dedicated view for: every record in a table,
 * its headline metric in a chart, without values of the paper
 * "GPU-Initiated Communication: Dissecting Down to the Bone".
 */
final class GenericSection {
    private GenericSection() {
    }

    static Section build(ResultFile f, Path outDir, String figPrefix) {
        Set<String> cols = new LinkedHashSet<>();
        for (Map<String, Object> r : f.records()) {
            for (String k : r.keySet()) {
                if (!k.equals("record") && !(r.get(k) instanceof List) && !(r.get(k) instanceof Map)) {
                    cols.add(k);
                }
            }
        }
        // a merged record's X_min and X_max go into X's cell ("median [min, max]"), not columns of their own
        cols.removeIf(c -> (c.endsWith("_min") || c.endsWith("_max")) && cols.contains(c.substring(0, c.length() - 4))
                && cols.contains(c.substring(0, c.length() - 4) + (c.endsWith("_min") ? "_max" : "_min")));
        Table.Builder t = new Table.Builder("every record as written");
        cols.forEach(t::col);
        for (Map<String, Object> r : f.records()) {
            List<String> cells = new ArrayList<>();
            for (String c : cols) {
                cells.add(r.get(c) == null ? "" : Fmt.ranged(r, c, String::valueOf));
            }
            t.row(cells);
        }
        String metric = headline(cols, f.records());
        List<Section.Figure> figs = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        if (cols.contains("size_bytes") && cols.contains("goodput_gbps")) {
            // a goodput sweep: GB/s against the message size, not a bar per record
            List<double[]> pts = new ArrayList<>();
            for (Map<String, Object> r : f.records()) {
                if (r.get("size_bytes") instanceof Number x && r.get("goodput_gbps") instanceof Number y) {
                    pts.add(new double[] {x.doubleValue(), y.doubleValue()});
                }
            }
            pts.sort((a, b) -> Double.compare(a[0], b[0]));
            Charts.Xy xy = new Charts.Xy(f.name() + ": goodput vs size" + Provenance.tag(f.records()),
                    "message bytes (log2)", "GB/s").logX();
            xy.ours("goodput_gbps (ours)", GdaLatencySections.xs(pts), GdaLatencySections.ys(pts));
            f.records().stream().filter(r -> r.get("line_rate_gbps") instanceof Number).findFirst()
                    .ifPresent(r -> xy.level("90 % of the wire model's line rate", 0.9 * Fmt.num(r, "line_rate_gbps")));
            String fig = figPrefix + ".png";
            xy.write(outDir.resolve(fig));
            figs.add(new Section.Figure(fig, "goodput against message size (ours); the paper's Fig. 8 values are not "
                    + "tabulated, so no reference points."));
        } else if (metric != null) {
            Charts.Bars b = new Charts.Bars(f.name() + ": " + metric + Provenance.tag(f.records()), "record", metric);
            int i = 0;
            for (Map<String, Object> r : f.records()) {
                i++;
                if (r.get(metric) instanceof Number n) {
                    b.ours(metric + " (ours)", "#" + i, n.doubleValue());
                }
            }
            String fig = figPrefix + ".png";
            b.write(outDir.resolve(fig));
            figs.add(new Section.Figure(fig, metric + " per record (ours); the paper has no value the report maps to it."));
        } else {
            notes.add("No figure: the records have no numeric metric.");
        }
        notes.addAll(Fmt.mergedNote(f.records()));
        return Section.of(figPrefix, f.experiment() + " — " + f.name(), "generic", List.of(f), notes,
                List.of(t.build()), figs);
    }

    /** The first p50 latency, rate or bandwidth column; else the first numeric one. */
    private static String headline(Set<String> cols, List<Map<String, Object>> rs) {
        String any = null;
        for (String c : cols) {
            boolean numeric = rs.stream().anyMatch(r -> r.get(c) instanceof Number);
            if (!numeric) {
                continue;
            }
            if (c.endsWith("_p50_ns") || c.endsWith("_mmsg_s") || c.endsWith("_gb_s")) {
                return c;
            }
            if (any == null) {
                any = c;
            }
        }
        return any;
    }
}
