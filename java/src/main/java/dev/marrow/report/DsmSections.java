// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import dev.marrow.report.DsmPlots;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code dsm.E*}: one section per experiment and file. The records carry the
 * DSM study's values ("How does Hopper distributed shared memory actually
 * move data?") as {@code reference_*} fields; tables shade them, and a
 * chart sets each of our values beside its reference. The E2-E4 fits, E5, E7
 * and E10 also get {@link DsmPlots}' dedicated figures.
 */
final class DsmSections {
    private DsmSections() {
    }

    /** Per-size points and per-pair rows are too many for a table; the figures use them. */
    private static final Set<String> DETAIL_ROWS = Set.of("point", "pair");
    private static final Set<String> HIDDEN = Set.of("record", "experiment", "backend", "hardware", "placement",
            "sizes_bytes", "senders_smid", "receivers_smid");

    static List<Section> build(ResultFile f, Path outDir, String figPrefix) {
        Map<String, List<Map<String, Object>>> byExp = new LinkedHashMap<>();
        for (Map<String, Object> r : f.records()) {
            byExp.computeIfAbsent(String.valueOf(r.get("experiment")), k -> new ArrayList<>()).add(r);
        }
        Path plotDir = outDir.resolve(figPrefix);
        List<Path> dedicated = DsmPlots.render(f.records(), plotDir);
        List<Section> out = new ArrayList<>();
        for (Map.Entry<String, List<Map<String, Object>>> e : byExp.entrySet()) {
            String exp = e.getKey();
            String id = figPrefix + "-" + exp.replace('.', '-');
            List<Map<String, Object>> rows = e.getValue().stream()
                    .filter(r -> !DETAIL_ROWS.contains(String.valueOf(r.get("row")))).toList();
            List<Table> tables = new ArrayList<>();
            if (!rows.isEmpty()) {
                tables.add(table(rows));
            }
            List<Section.Figure> figs = new ArrayList<>();
            String short_ = exp.substring(exp.indexOf('.') + 1);
            for (Path p : dedicated) {
                String n = p.getFileName().toString();
                boolean mine = n.startsWith("fit-" + short_ + "-")
                        || (short_.equals("E5") && n.startsWith("bars-"))
                        || (short_.equals("E7") && n.startsWith("scaling-"))
                        || (short_.equals("E10") && n.startsWith("sharing-"));
                if (mine) {
                    figs.add(new Section.Figure(outDir.relativize(p).toString(), figureCaption(n)));
                }
            }
            Charts.Bars vs = versus(exp + " (" + f.name() + "): ours vs reference" + Provenance.tag(e.getValue()), rows);
            if (vs != null) {
                String fig = id + "-vs-reference.png";
                vs.write(outDir.resolve(fig));
                figs.add(new Section.Figure(fig, "Each of our values (bars) beside the published value the record "
                        + "names as its reference (hollow squares; `reference_source` in the table), references only."));
            }
            List<String> notes = new ArrayList<>();
            if (figs.isEmpty()) {
                notes.add("No figure: these records have no value with a published reference and no per-size series.");
            }
            long detail = e.getValue().size() - rows.size();
            if (detail > 0) {
                notes.add(detail + " per-size point / per-pair rows are in the raw file (and in the fit figures), not in the table.");
            }
            out.add(Section.of(id, "DSM " + short_ + " — " + f.name(), "dsm", List.of(new ResultFile(f.path(), f.env(),
                    e.getValue())), notes, tables, figs));
        }
        return out;
    }

    private static String figureCaption(String n) {
        if (n.startsWith("fit-")) {
            return "Median cycles per size with the affine fit, residuals below (ours).";
        }
        if (n.startsWith("bars-")) {
            return "Per-direction 1/β, one-way vs both directions (bars: ours; hollow squares: the DSM study, reference).";
        }
        if (n.startsWith("scaling-")) {
            return "TMA ring scaling (lines: ours; hollow squares: the DSM study, reference).";
        }
        return "Per-sender 1/β vs concurrent senders (lines: ours; hollow square: the study's 128/6 model, reference).";
    }

    static Table table(List<Map<String, Object>> rows) {
        Set<String> cols = new LinkedHashSet<>();
        for (Map<String, Object> r : rows) {
            for (String k : r.keySet()) {
                if (!HIDDEN.contains(k) && !(r.get(k) instanceof List) && !(r.get(k) instanceof Map)) {
                    cols.add(k);
                }
            }
        }
        Table.Builder t = new Table.Builder("rows of the run (per-size points and pairs omitted); "
                + "reference_* columns are published values, not ours");
        List<String> order = new ArrayList<>();
        for (String c : cols) {
            if (!isRef(c)) {
                t.col(c);
                order.add(c);
            }
        }
        for (String c : cols) {
            if (isRef(c)) {
                t.ref(c);
                order.add(c);
            }
        }
        for (Map<String, Object> r : rows) {
            List<String> cells = new ArrayList<>();
            for (String c : order) {
                Object v = r.get(c);
                cells.add(v == null ? "" : String.valueOf(v));
            }
            t.row(cells);
        }
        return t.build();
    }

    /** vs_reference_pct is our deviation from the reference: ours, but only meaningful beside it, so it sits there. */
    static boolean isRef(String c) {
        return c.startsWith("reference_") || c.equals("vs_reference_pct");
    }

    /** E8 names its measured values differently from the references they compare with. */
    private static final Map<String, String> ALIAS = Map.of("best_span_gb_s", "best_gb_s", "worst_span_gb_s",
            "worst_gb_s", "pairs_vs_median_ring_pct", "pairs_vs_ring_pct");

    static Charts.Bars versus(String title, List<Map<String, Object>> rows) {
        Charts.Bars b = new Charts.Bars(title, "row and quantity", "value (unit of the quantity)");
        int n = 0;
        for (Map<String, Object> r : rows) {
            for (Map.Entry<String, Object> e : r.entrySet()) {
                String k = e.getKey();
                if (isRef(k) || !(e.getValue() instanceof Number ours)) {
                    continue;
                }
                if (r.get("reference_" + ALIAS.getOrDefault(k, k)) instanceof Number ref) {
                    String cat = r.getOrDefault("series", "") + ": " + k;
                    b.ours("ours", cat, ours.doubleValue());
                    b.reference("reference (published)", cat, ref.doubleValue());
                    n++;
                }
            }
        }
        return n == 0 ? null : b;
    }
}
