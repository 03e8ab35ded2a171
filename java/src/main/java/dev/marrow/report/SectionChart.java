// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One chart of a curated section, drawn from a generated page table (report-sections.json, key
 * {@code chart}) beside points of the reference data of the paper "GPU-Initiated Communication: Dissecting
 * Down to the Bone" (or of the DSM study, through a table's reference column); never from a hand-typed number. A chart is
 * data, not code: it names the table, the columns and the paper's value ids. Rules that the spec is
 * checked against ({@link #check}): the value columns are metrics (a unit or a statistic in the header),
 * never a parameter; both axis titles carry a unit in parentheses; a line chart's x is a numeric column.
 * Bars are labelled by variant (the category columns' values, the series' names).
 */
record SectionChart(String table, String kind, List<String> x, List<String> y, String series, double scale,
        boolean logX, String title, String xAxis, String yAxis, Map<String, String> where, List<Ref> refs,
        String refColumn) {

    /** A value of the paper's reference data (by id), drawn at x (line chart) or in category/series (bars). */
    record Ref(String id, String at, String series) {
    }

    /** A column header that names a measured quantity: a statistic or a unit of one. */
    static final Pattern METRIC = Pattern.compile(
            "(?i).*(p50|p99|median|goodput|rate|GB/s|M msg/s|B/cycle|slowdown|loss|%|(^|[\\s(])(ns|µs|ms)([\\s)]|$)).*");
    private static final Pattern UNIT = Pattern.compile(".*\\([^)]*\\S[^)]*\\).*");
    private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(B|KiB|MiB|GiB)");

    /** Problems of the spec itself (empty when it obeys the rules); the report refuses a chart that has any. */
    List<String> check() {
        List<String> p = new ArrayList<>();
        for (String c : y) {
            if (!METRIC.matcher(c).matches()) {
                p.add("value column '" + c + "' is not a metric (a parameter is never plotted as one)");
            }
            if (x.contains(c)) {
                p.add("column '" + c + "' is both x and a value");
            }
        }
        if (!UNIT.matcher(xAxis).matches() || !UNIT.matcher(yAxis).matches()) {
            p.add("axis titles need a unit in parentheses: '" + xAxis + "', '" + yAxis + "'");
        }
        if (!kind.equals("xy") && !kind.equals("bars")) {
            p.add("kind must be xy or bars, not " + kind);
        }
        if (kind.equals("xy") && x.size() != 1) {
            p.add("a line chart has one x column");
        }
        return p;
    }

    /** The rows of a generated markdown table, each a header -> cell map. */
    static List<Map<String, String>> rows(String md) {
        List<List<String>> raw = new ArrayList<>();
        for (String line : md.split("\n")) {
            String l = line.strip();
            if (!l.startsWith("|")) {
                continue;
            }
            List<String> cells = new ArrayList<>();
            for (String c : l.substring(1, l.endsWith("|") ? l.length() - 1 : l.length()).split("(?<!\\\\)\\|", -1)) {
                cells.add(c.strip());
            }
            if (cells.stream().allMatch(c -> c.matches(":?-+:?"))) {
                continue;
            }
            raw.add(cells);
        }
        List<Map<String, String>> out = new ArrayList<>();
        for (List<String> r : raw.subList(Math.min(1, raw.size()), raw.size())) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < raw.getFirst().size() && i < r.size(); i++) {
                m.put(raw.getFirst().get(i), r.get(i));
            }
            out.add(m);
        }
        return out;
    }

    /** The leading number of a cell ("3360 [3328, 3392]", "**2.496**", "8 B", "1 KiB" as 1024), or NaN. */
    static double number(String cell) {
        if (cell == null) {
            return Double.NaN;
        }
        String c = cell.replace("*", "").replace("`", "").strip();
        Matcher s = SIZE.matcher(c);
        if (s.matches()) {
            int shift = switch (s.group(2)) {
                case "KiB" -> 10;
                case "MiB" -> 20;
                case "GiB" -> 30;
                default -> 0;
            };
            return Double.parseDouble(s.group(1)) * (1L << shift);
        }
        Matcher m = NUMBER.matcher(c);
        return m.lookingAt() ? Double.parseDouble(m.group()) : Double.NaN;
    }

    private boolean selected(Map<String, String> r) {
        return where.entrySet().stream().allMatch(e -> e.getValue().equals(r.get(e.getKey())));
    }

    private String label(Map<String, String> r, List<String> cols) {
        List<String> l = new ArrayList<>();
        for (String c : cols) {
            l.add(r.getOrDefault(c, "").replace("`", "").replace("*", ""));
        }
        return String.join(" / ", l);
    }

    /**
     * Draws the chart into file from the generated table md; returns false (and draws nothing) when the
     * table gives no point. suffix goes into the title ("EMULATED NIC" where the records say so).
     */
    boolean write(String md, Path file, String suffix) {
        List<Map<String, String>> rows = rows(md).stream().filter(this::selected).toList();
        PaperReferences paper = PaperReferences.get();
        String name = "paper";
        int points = 0;
        if (kind.equals("xy")) {
            Charts.Xy c = new Charts.Xy(title + suffix, xAxis, yAxis);
            if (logX) {
                c.logX();
            }
            Map<String, List<double[]>> byName = new LinkedHashMap<>();
            for (Map<String, String> r : rows) {
                double xv = number(r.get(x.getFirst()));
                for (String col : y) {
                    double yv = number(r.get(col)) * scale;
                    if (Double.isNaN(xv) || Double.isNaN(yv) || (logX && xv <= 0)) {
                        continue;
                    }
                    String n = (series == null ? "" : r.get(series) + (y.size() > 1 ? ": " : "")) + (series == null
                            || y.size() > 1 ? col : "");
                    byName.computeIfAbsent(n, k -> new ArrayList<>()).add(new double[] {xv, yv});
                    points++;
                }
            }
            byName.forEach((n, pts) -> c.ours(n, pts.stream().mapToDouble(p -> p[0]).toArray(),
                    pts.stream().mapToDouble(p -> p[1]).toArray()));
            Map<String, List<double[]>> refPts = new LinkedHashMap<>();
            for (Ref ref : refs) {
                PaperReferences.Ref v = paper.ref(ref.id());
                String n = name + " (" + v.platform() + ")" + (ref.series() == null ? "" : ": " + ref.series());
                if (ref.at() == null) {
                    c.level(n + ": " + v.what(), v.value());
                } else {
                    refPts.computeIfAbsent(n, k -> new ArrayList<>()).add(new double[] {number(ref.at()), v.value()});
                }
            }
            refPts.forEach((n, pts) -> c.reference(n, pts.stream().mapToDouble(p -> p[0]).toArray(),
                    pts.stream().mapToDouble(p -> p[1]).toArray()));
            if (points > 0) {
                c.write(file);
            }
        } else {
            Charts.Bars b = new Charts.Bars(title + suffix, xAxis, yAxis);
            List<String> names = new ArrayList<>();
            for (Map<String, String> r : rows) {
                String cat = label(r, x);
                for (String col : y) {
                    double v = number(r.get(col)) * scale;
                    if (Double.isNaN(v)) {
                        continue;
                    }
                    String s = series != null ? r.getOrDefault(series, "") : col;
                    b.ours(s, cat, v);
                    if (!names.contains(s)) {
                        names.add(s);
                    }
                    points++;
                    if (refColumn != null && !Double.isNaN(number(r.get(refColumn)))) {
                        b.reference(refColumn, cat, number(r.get(refColumn)) * scale);
                    }
                }
            }
            for (Ref ref : refs.stream().filter(r -> r.at() == null).toList()) {
                PaperReferences.Ref v = paper.ref(ref.id());
                b.level(name + " (" + v.platform() + "): " + v.what(), v.value());
            }
            List<Ref> placed = refs.stream().filter(r -> r.at() != null).toList();
            if (!placed.isEmpty()) {
                // one reference series per bar series, so each square sits over its own bar
                String platform = paper.ref(placed.getFirst().id()).platform();
                for (String s : names) {
                    String rs = name + " (" + platform + ")" + (names.size() > 1 ? ": " + s : "");
                    b.referenceSeries(rs);
                    for (Ref ref : placed) {
                        if (ref.series() == null || ref.series().equals(s)) {
                            PaperReferences.Ref v = paper.ref(ref.id());
                            b.reference(rs, ref.at(), v.value());
                        }
                    }
                }
            }
            if (points > 0) {
                b.write(file);
            }
        }
        return points > 0;
    }
}
