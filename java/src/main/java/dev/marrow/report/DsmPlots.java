// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import dev.marrow.dsm.OneWay;
import dev.marrow.dsm.AffineFit;
import dev.marrow.dsm.Reference;
import dev.marrow.results.JsonLinesReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * PNG plots from the JSON lines of `dsm run --format json`: the affine fit
 * with residuals (E2-E4, one file per series), per-direction bars (E5 vs
 * one-way), ring scaling (E7) and the sharing test (E10), drawn with
 * {@link Charts}: reference values appear as hollow squares, ours as filled marks.
 */
public final class DsmPlots {
    private DsmPlots() {
    }

    /** The records (not the header) of a JSON-lines result file. */
    public static List<Map<String, Object>> read(Path jsonl) {
        List<Map<String, Object>> rows = new ArrayList<>();
        // one line at a time through the bounded reader (docs/design/records.md)
        try (JsonLinesReader r = JsonLinesReader.open(jsonl, false)) {
            while (r.hasNext()) {
                Map<String, Object> m = r.next();
                if ("result".equals(m.get("record"))) {
                    rows.add(m);
                }
            }
        } catch (IllegalArgumentException e) {
            // bad input (not JSON lines, not UTF-8, not a regular file): a usage error (exit 2), not a failed run
            throw new IllegalArgumentException(jsonl + ": not DSM result JSON lines: " + e.getMessage(), e);
        }
        return rows;
    }

    /** Writes every plot the records allow into dir; returns the files written. */
    public static List<Path> render(List<Map<String, Object>> rows, Path dir) {
        List<Path> files = new ArrayList<>();
        for (String exp : List.of("E2", "E3", "E4")) {
            Map<String, List<Map<String, Object>>> series = new LinkedHashMap<>();
            for (Map<String, Object> r : rows) {
                if (("dsm." + exp).equals(r.get("experiment")) && "point".equals(r.get("row"))) {
                    series.computeIfAbsent((String) r.get("series"), k -> new ArrayList<>()).add(r);
                }
            }
            for (Map.Entry<String, List<Map<String, Object>>> e : series.entrySet()) {
                Path f = dir.resolve("fit-" + exp + "-" + slug(e.getKey()) + ".png");
                fitPlot(exp + " " + e.getKey(), e.getValue(), f);
                files.add(f);
            }
        }
        List<Map<String, Object>> e5 = select(rows, "dsm.E5", "fit");
        if (!e5.isEmpty()) {
            Path f = dir.resolve("bars-per-direction.png");
            bars(e5, f);
            files.add(f);
        }
        List<Map<String, Object>> e7 = select(rows, "dsm.E7", "summary");
        if (!e7.isEmpty()) {
            Path f = dir.resolve("scaling-ring.png");
            scaling(e7, f);
            files.add(f);
        }
        List<Map<String, Object>> e10 = new ArrayList<>();
        for (Map<String, Object> r : select(rows, "dsm.E10", "summary")) {
            if (r.get("k") != null) {
                e10.add(r);
            }
        }
        if (!e10.isEmpty()) {
            Path f = dir.resolve("sharing-e10.png");
            sharing(e10, f);
            files.add(f);
        }
        return files;
    }

    static List<Map<String, Object>> select(List<Map<String, Object>> rows, String exp, String row) {
        List<Map<String, Object>> l = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            if (exp.equals(r.get("experiment")) && row.equals(r.get("row"))) {
                l.add(r);
            }
        }
        return l;
    }

    static double num(Map<String, Object> r, String k) {
        Object v = r.get(k);
        if (!(v instanceof Number n)) {
            throw new IllegalArgumentException("record lacks numeric '" + k + "': " + r);
        }
        return n.doubleValue();
    }

    static String slug(String s) {
        return s.replaceAll("[^A-Za-z0-9]+", "_").replaceAll("^_|_$", "");
    }

    static void fitPlot(String title, List<Map<String, Object>> pts, Path file) {
        int n = pts.size();
        double[] x = new double[n];
        double[] y = new double[n];
        double[] res = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = num(pts.get(i), "size_bytes") / 1024.0;
            y[i] = num(pts.get(i), "median_cycles");
            res[i] = num(pts.get(i), "residual_cycles");
        }
        // Refit here only to draw and label the line; the numbers are the run's own.
        AffineFit f = AffineFit.of(x, y);
        double[] lx = {0, max(x) * 1.05};
        double[] ly = {f.alpha(), f.predict(max(x) * 1.05)};
        Charts.Xy top = new Charts.Xy(null, null, "median elapsed SM cycles")
                .ours("median cycles", x, y)
                .ours(String.format(Locale.ROOT, "fit: alpha = %.0f cycles, 1/beta = %.2f B/cycle", f.alpha(),
                        1024.0 / f.beta()), lx, ly);
        Charts.Xy bottom = new Charts.Xy(null, null, "residual cycles").ours("residual", x, res);
        Charts.write(Charts.withResiduals(title + ": median cycles vs payload per SM", "payload per active SM (KiB)",
                top, bottom), file, 800, 640);
    }

    static void bars(List<Map<String, Object>> e5, Path file) {
        Charts.Bars b = new Charts.Bars("E5: per-direction 1/beta, one-way vs bidirectional", "direction",
                "B/cycle per direction");
        for (Map<String, Object> r : e5) {
            String dir = (String) r.get("direction");
            OneWay k = OneWay.valueOf(dir.split(" ")[0].toUpperCase(Locale.ROOT));
            b.ours("one-way", dir, num(r, "one_way_b_per_cycle"));
            b.ours("both directions at once", dir, num(r, "inv_beta_b_per_cycle"));
            b.reference("study one-way (reference)", dir, k.oneWayReference().value());
            b.reference("study bidirectional (reference)", dir, k.bidirReference().value());
        }
        b.write(file);
    }

    static void scaling(List<Map<String, Object>> e7, Path file) {
        int n = e7.size();
        double[] sms = new double[n];
        double[] rate = new double[n];
        double[] alphaSlow = new double[n];
        double[] alphaSm = new double[n];
        for (int i = 0; i < n; i++) {
            sms[i] = num(e7.get(i), "ring");
            rate[i] = num(e7.get(i), "per_sm_b_per_cycle");
            alphaSlow[i] = num(e7.get(i), "slowest_alpha_cycles");
            alphaSm[i] = num(e7.get(i), "per_sm_alpha_cycles");
        }
        double[] ref = new double[n];
        java.util.Arrays.fill(ref, Reference.RING_PER_SM.value());
        Charts.Xy top = new Charts.Xy(null, null, "per-SM 1/beta (B/cycle)")
                .ours("per-SM 1/beta", sms, rate)
                .reference("study per-SM (reference)", sms, ref);
        Charts.Xy bottom = new Charts.Xy(null, null, "alpha (cycles)")
                .ours("slowest receiver's alpha", sms, alphaSlow)
                .ours("mean per-SM alpha", sms, alphaSm)
                .reference("study alpha (reference)", new double[] {2, 16},
                        new double[] {Reference.RING_ALPHA_2.value(), Reference.RING_ALPHA_16.value()});
        Charts.write(Charts.withResiduals("E7: TMA ring scaling", "active SMs", top, bottom), file, 900, 700);
    }

    static void sharing(List<Map<String, Object>> e10, Path file) {
        Charts.Xy c = new Charts.Xy("E10: per-sender 1/beta vs concurrent senders k, TMA and load",
                "concurrent senders k", "per-sender B/cycle");
        for (String series : List.of("tma packed", "tma spread", "load packed", "load spread")) {
            String kind = series.substring(0, series.indexOf(' '));
            String layout = series.substring(series.indexOf(' ') + 1);
            List<double[]> pts = new ArrayList<>();
            for (Map<String, Object> r : e10) {
                Object k = r.get("kind") == null ? "tma" : r.get("kind");
                if (layout.equals(r.get("layout")) && kind.equals(k)) {
                    pts.add(new double[] {num(r, "k"), num(r, "per_sender_b_per_cycle")});
                }
            }
            if (!pts.isEmpty()) {
                c.ours(series, pts.stream().mapToDouble(v -> v[0]).toArray(), pts.stream().mapToDouble(v -> v[1]).toArray());
            }
        }
        c.reference("study model 128/6 B/cycle (reference)", new double[] {1}, new double[] {Reference.MODEL_PER_SM.value()});
        c.write(file);
    }

    static double max(double[] v) {
        double m = Double.NEGATIVE_INFINITY;
        for (double x : v) {
            m = Math.max(m, x);
        }
        return m;
    }
}
