// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import tools.jackson.databind.json.JsonMapper;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PNG plots from the JSON lines of `dsm run --format json`: the affine fit
 * with residuals (E2-E4, one file per series), per-direction bars (E5 vs
 * one-way), ring scaling (E7) and the sharing test (E10). Reference values
 * appear as hollow squares, our values as filled marks.
 */
public final class DsmPlots {
    private DsmPlots() {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The records (not the header) of a JSON-lines result file. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> read(Path jsonl) {
        List<Map<String, Object>> rows = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(jsonl)) {
                if (line.isBlank()) {
                    continue;
                }
                Map<String, Object> m = JSON.readValue(line, Map.class);
                if ("result".equals(m.get("record"))) {
                    rows.add(m);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + jsonl, e);
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
        double[] fit = new double[n];
        double[] res = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = num(pts.get(i), "size_bytes") / 1024.0;
            y[i] = num(pts.get(i), "median_cycles");
            fit[i] = num(pts.get(i), "fit_cycles");
            res[i] = num(pts.get(i), "residual_cycles");
        }
        // Refit here only to label the plot; the numbers are the run's own.
        AffineFit f = AffineFit.of(x, y);
        PlotCanvas c = new PlotCanvas(800, 640);
        c.title(title + ": median cycles vs payload per SM", 70, 24);
        PlotCanvas.Panel top = c.panel(80, 50, 680, 360, 0, max(x) * 1.05, 0, max(y) * 1.1, "payload per active SM (KiB)",
                "median elapsed SM cycles");
        top.points(x, y, PlotCanvas.PALETTE[0]);
        top.line(0, f.alpha(), max(x) * 1.05, f.predict(max(x) * 1.05), PlotCanvas.PALETTE[1], false);
        c.text(String.format("fit: alpha = %.0f cycles, 1/beta = %.2f B/cycle", f.alpha(), 1024.0 / f.beta()), 100, 80,
                Color.BLACK);
        double r = Math.max(1, maxAbs(res)) * 1.2;
        PlotCanvas.Panel bottom = c.panel(80, 470, 680, 120, 0, max(x) * 1.05, -r, r, "payload per active SM (KiB)",
                "residual cycles");
        bottom.line(0, 0, max(x) * 1.05, 0, Color.GRAY, true);
        bottom.points(x, res, PlotCanvas.PALETTE[3]);
        c.write(file);
    }

    static void bars(List<Map<String, Object>> e5, Path file) {
        PlotCanvas c = new PlotCanvas(900, 520);
        c.title("E5: per-direction 1/beta, one-way vs bidirectional (squares: study reference)", 60, 24);
        double ymax = 0;
        for (Map<String, Object> r : e5) {
            ymax = Math.max(ymax, Math.max(num(r, "inv_beta_b_per_cycle"), num(r, "one_way_b_per_cycle")));
        }
        ymax = Math.max(ymax, Reference.TMA.value()) * 1.2;
        PlotCanvas.Panel p = c.panel(80, 60, 780, 380, -0.5, e5.size() - 0.5, 0, ymax, "direction", "B/cycle per direction");
        for (int i = 0; i < e5.size(); i++) {
            Map<String, Object> r = e5.get(i);
            String dir = (String) r.get("direction");
            p.bar(i - 0.18, 0.34, num(r, "one_way_b_per_cycle"), PlotCanvas.PALETTE[0],
                    String.format("%.1f", num(r, "one_way_b_per_cycle")));
            p.bar(i + 0.18, 0.34, num(r, "inv_beta_b_per_cycle"), PlotCanvas.PALETTE[1],
                    String.format("%.1f", num(r, "inv_beta_b_per_cycle")));
            OneWay k = OneWay.valueOf(dir.split(" ")[0].toUpperCase());
            p.marker(i - 0.18, k.oneWayReference().value(), Color.BLACK);
            p.marker(i + 0.18, k.bidirReference().value(), Color.BLACK);
            p.label(dir, i - 0.35, ymax * 0.03, Color.WHITE);
        }
        c.text("blue: one-way, orange: both directions at once", 100, 500, Color.BLACK);
        c.write(file);
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
        PlotCanvas c = new PlotCanvas(900, 700);
        c.title("E7: TMA ring scaling (squares: study reference)", 60, 24);
        PlotCanvas.Panel a = c.panel(80, 60, 780, 250, 0, 17, 0, Math.max(max(rate), 22) * 1.2, "active SMs",
                "per-SM 1/beta (B/cycle)");
        a.polyline(sms, rate, PlotCanvas.PALETTE[0]);
        for (double s : sms) {
            a.marker(s, Reference.RING_PER_SM.value(), Color.BLACK);
        }
        double top = Math.max(Math.max(max(alphaSlow), max(alphaSm)), Reference.RING_ALPHA_16.value()) * 1.2;
        PlotCanvas.Panel b = c.panel(80, 380, 780, 250, 0, 17, 0, top, "active SMs", "alpha (cycles)");
        b.polyline(sms, alphaSlow, PlotCanvas.PALETTE[1]);
        b.polyline(sms, alphaSm, PlotCanvas.PALETTE[2]);
        b.marker(2, Reference.RING_ALPHA_2.value(), Color.BLACK);
        b.marker(16, Reference.RING_ALPHA_16.value(), Color.BLACK);
        c.text("orange: slowest receiver's alpha; green: mean per-SM alpha", 100, 680, Color.BLACK);
        c.write(file);
    }

    static void sharing(List<Map<String, Object>> e10, Path file) {
        PlotCanvas c = new PlotCanvas(900, 420);
        c.title("E10: per-sender 1/beta vs concurrent senders k, TMA and load (square: 128/6 model)", 60, 24);
        PlotCanvas.Panel p = c.panel(80, 60, 780, 300, 0, 9, 0, 30, "concurrent senders k", "per-sender B/cycle");
        int ci = 0;
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
            if (pts.isEmpty()) {
                continue;
            }
            double[] x = pts.stream().mapToDouble(v -> v[0]).toArray();
            double[] y = pts.stream().mapToDouble(v -> v[1]).toArray();
            p.polyline(x, y, PlotCanvas.PALETTE[ci]);
            c.text(series, 100 + 130 * ci, 400, PlotCanvas.PALETTE[ci]);
            ci++;
        }
        p.marker(1, Reference.MODEL_PER_SM.value(), Color.BLACK);
        c.write(file);
    }

    static double max(double[] v) {
        double m = Double.NEGATIVE_INFINITY;
        for (double x : v) {
            m = Math.max(m, x);
        }
        return m;
    }

    static double maxAbs(double[] v) {
        double m = 0;
        for (double x : v) {
            m = Math.max(m, Math.abs(x));
        }
        return m;
    }
}
