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
        } else if (metric != null && f.records().size() > MAX_BARS) {
            // one bar per record stops being readable long before this, and the chart library's category
            // lookups grow with the square of the bar count: the table carries every record instead
            notes.add("No figure: " + f.records().size() + " records are too many for a bar each (at most "
                    + MAX_BARS + "); the table has them all.");
        } else if (metric != null) {
            List<String> varying = varying(cols, f.records());
            Charts.Bars b = new Charts.Bars(f.name() + ": " + metric + Provenance.tag(f.records()),
                    varying.isEmpty() ? "record" : "variant (" + String.join(", ", varying) + ")", unitLabel(metric));
            int i = 0;
            Set<String> labels = new java.util.HashSet<>();
            for (Map<String, Object> r : f.records()) {
                i++;
                if (r.get(metric) instanceof Number n) {
                    String label = variant(r, varying, i);
                    b.ours(metric + " (ours)", labels.add(label) ? label : label + " #" + i, n.doubleValue());
                }
            }
            String fig = figPrefix + ".png";
            b.write(outDir.resolve(fig));
            figs.add(new Section.Figure(fig, metric + " per variant (ours); the paper has no value the report maps to it."));
        } else {
            notes.add("No figure: the records have no numeric metric.");
        }
        notes.addAll(Fmt.mergedNote(f.records()));
        return Section.of(figPrefix, f.experiment() + " — " + f.name(), "generic", List.of(f), notes,
                List.of(t.build()), figs);
    }

    /** Most bars one figure draws (one per record). */
    static final int MAX_BARS = 48;

    /**
     * The first p50 latency, rate or bandwidth column, or null: a column that is none of these is a
     * parameter (a size, a count, an index) and is never plotted as if it were a result.
     */
    static String headline(Set<String> cols, List<Map<String, Object>> rs) {
        for (String c : cols) {
            if (isMetric(c) && rs.stream().anyMatch(r -> r.get(c) instanceof Number)) {
                return c;
            }
        }
        return null;
    }

    static boolean isMetric(String c) {
        return c.endsWith("_p50_ns") || c.endsWith("_mmsg_s") || c.endsWith("_gb_s") || c.endsWith("_gbps")
                || c.endsWith("_p50_cycles") || c.equals("rate_mmsg_s") || c.endsWith("_per_s");
    }

    /** The value axis title with its unit, from the column's suffix. */
    static String unitLabel(String metric) {
        if (metric.endsWith("_ns")) {
            return metric + " (ns)";
        }
        if (metric.endsWith("_cycles")) {
            return metric + " (SM cycles)";
        }
        if (metric.endsWith("_mmsg_s")) {
            return metric + " (M msg/s)";
        }
        if (metric.endsWith("_gb_s") || metric.endsWith("_gbps")) {
            return metric + " (GB/s)";
        }
        return metric + " (per s)";
    }

    /** The parameter columns (not metrics) whose values differ between records: what tells the bars apart. */
    static List<String> varying(Set<String> cols, List<Map<String, Object>> rs) {
        List<String> out = new ArrayList<>();
        for (String c : cols) {
            if (isMetric(c) || c.endsWith("_ns") || c.endsWith("_p99") || c.equals("experiment") || c.equals("record")) {
                continue;
            }
            Object first = rs.getFirst().get(c);
            if (rs.stream().anyMatch(r -> !java.util.Objects.equals(first, r.get(c)))) {
                out.add(c);
            }
            if (out.size() == 3) {
                break;
            }
        }
        return out;
    }

    /** A bar's label: its values of the varying columns ("gpu-fence, inline, 8"); "#i" when none vary. */
    static String variant(Map<String, Object> r, List<String> varying, int i) {
        if (varying.isEmpty()) {
            return "#" + i;
        }
        List<String> v = new ArrayList<>();
        for (String c : varying) {
            v.add(String.valueOf(r.get(c)));
        }
        return String.join(", ", v);
    }
}
