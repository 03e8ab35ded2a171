// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares two result files point by point (marrow compare). Points are
 * matched the way {@link RunMerge} matches runs of one command, by order,
 * but within a key: experiment, backend and the parameters that tell points
 * apart ({@link #LABEL_FIELDS}: size, blocks, threads, QPs, ...). The k-th
 * record with a key in A is the same point as the k-th with that key in B,
 * so files of one command line up completely, and a run with a subset of
 * another's sizes matches on the sizes both have; a point only one file has
 * is counted, not compared. A is held in memory (its result records), B is
 * streamed.
 *
 * A metric is a numeric field whose name says its direction: latencies and
 * times (_ns, _us, _ms, _cycles), losses and slowdowns are better lower;
 * rates and bandwidths (_mmsg_s, _gb_s, _gbps, _per_s, _b_per_cycle) better
 * higher. The _min/_max beside a merged median are spread, not metrics. A
 * change within the threshold (a percentage of A's value) is "same"; beyond
 * it "better" or "worse". A point valid in A and invalid in B is worse.
 */
public final class Compare {
    private Compare() {
    }

    public enum Verdict {
        BETTER, WORSE, SAME;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One metric of one matched point. change is B relative to A in percent (NaN when A is 0 and B is not). */
    public record Row(String point, String metric, Object a, Object b, double changePct, Verdict verdict) {
    }

    /** What a comparison found; rows in B's order. */
    public record Result(List<Row> rows, int matched, int onlyA, int onlyB, double thresholdPct) {
        public List<Row> regressions() {
            return rows.stream().filter(r -> r.verdict() == Verdict.WORSE).toList();
        }

        public long count(Verdict v) {
            return rows.stream().filter(r -> r.verdict() == v).count();
        }
    }

    static final String[] LOWER_BETTER = {"_ns", "_us", "_ms", "_cycles", "_loss", "slowdown"};
    static final String[] HIGHER_BETTER = {"_mmsg_s", "_gb_s", "_gbps", "_per_s", "_b_per_cycle"};

    /** +1: higher is better, -1: lower is better, 0: not a metric. */
    public static int direction(String name) {
        for (String s : LOWER_BETTER) {
            if (name.endsWith(s)) {
                return -1;
            }
        }
        for (String s : HIGHER_BETTER) {
            if (name.endsWith(s)) {
                return 1;
            }
        }
        return 0;
    }

    /** A merged record's NAME_min / NAME_max beside NAME: spread, not a metric of its own. */
    static boolean spread(String name, Map<String, Object> rec) {
        for (String s : new String[] {"_min", "_max"}) {
            if (name.endsWith(s) && rec.containsKey(name.substring(0, name.length() - s.length()))) {
                return true;
            }
        }
        return false;
    }

    /** "5%", "5" or "2.5%": a percentage; IllegalArgumentException (usage) otherwise. */
    public static double parseThreshold(String s) {
        String t = s.strip();
        if (t.endsWith("%")) {
            t = t.substring(0, t.length() - 1).strip();
        }
        double v;
        try {
            v = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            v = Double.NaN;
        }
        if (!(v >= 0) || Double.isInfinite(v) || t.isEmpty()) {
            throw new IllegalArgumentException("--threshold must be a percentage >= 0 such as 5%, not '" + s + "'");
        }
        return v;
    }

    public static Result compare(JsonLinesReader a, JsonLinesReader b, double thresholdPct) {
        Map<String, List<Map<String, Object>>> left = new HashMap<>();
        while (a.hasNext()) {
            Map<String, Object> m = a.next();
            if (RunMerge.isResult(m)) {
                left.computeIfAbsent(group(m), k -> new ArrayList<>()).add(m);
            }
        }
        Map<String, Integer> seen = new HashMap<>();
        List<Row> rows = new ArrayList<>();
        int matched = 0;
        int onlyB = 0;
        while (b.hasNext()) {
            Map<String, Object> m = b.next();
            if (!RunMerge.isResult(m)) {
                continue;
            }
            String g = group(m);
            int k = seen.merge(g, 1, Integer::sum) - 1;
            List<Map<String, Object>> as = left.get(g);
            if (as == null || k >= as.size()) {
                onlyB++;
                continue;
            }
            matched++;
            compare(label(g, k, as.get(k)), as.get(k), m, thresholdPct, rows);
        }
        if (matched == 0) {
            throw new IllegalArgumentException("no point of " + b.name() + " matches one of " + a.name()
                    + " (compare needs result files of one command: same experiments and backends)");
        }
        int onlyA = 0;
        for (Map.Entry<String, List<Map<String, Object>>> e : left.entrySet()) {
            onlyA += Math.max(0, e.getValue().size() - seen.getOrDefault(e.getKey(), 0));
        }
        return new Result(rows, matched, onlyA, onlyB, thresholdPct);
    }

    private static void compare(String point, Map<String, Object> a, Map<String, Object> b, double threshold,
                                List<Row> rows) {
        if (!Boolean.FALSE.equals(a.get("valid")) && Boolean.FALSE.equals(b.get("valid"))) {
            rows.add(new Row(point, "valid", a.get("valid"), false, Double.NaN, Verdict.WORSE));
        }
        for (Map.Entry<String, Object> e : b.entrySet()) {
            String name = e.getKey();
            int dir = direction(name);
            if (dir == 0 || spread(name, b) || !(e.getValue() instanceof Number nb)
                    || !(a.get(name) instanceof Number na)) {
                continue;
            }
            double x = na.doubleValue();
            double y = nb.doubleValue();
            double pct = x == 0 ? (y == 0 ? 0 : Double.NaN) : (y - x) / Math.abs(x) * 100;
            Verdict v;
            if (Double.isNaN(pct)) {
                v = (y - x) * dir > 0 ? Verdict.BETTER : Verdict.WORSE;
            } else if (Math.abs(pct) <= threshold) {
                v = Verdict.SAME;
            } else {
                v = pct * dir > 0 ? Verdict.BETTER : Verdict.WORSE;
            }
            rows.add(new Row(point, name, na, nb, pct, v));
        }
    }

    /** experiment, backend and the values of the {@link #LABEL_FIELDS} the record has. */
    private static String group(Map<String, Object> m) {
        StringBuilder sb = new StringBuilder().append(m.get("experiment")).append('\u0000').append(m.get("backend"));
        for (String f : LABEL_FIELDS) {
            if (m.containsKey(f)) {
                sb.append('\u0001').append(f).append('=').append(m.get(f));
            }
        }
        return sb.toString();
    }

    /** The parameters that usually tell points of one experiment apart, when the record has them. */
    static final List<String> LABEL_FIELDS = List.of("target", "size_bytes", "msg_size_bytes", "blocks", "threads",
            "qps", "producers", "workers", "batch", "ordering", "placement", "preset", "row", "series", "arm",
            "caller", "background", "background_streams");

    private static String label(String group, int k, Map<String, Object> rec) {
        Map<String, Object> shown = new LinkedHashMap<>();
        for (String f : LABEL_FIELDS) {
            if (rec.containsKey(f) && rec.get(f) != null) {
                shown.put(f, rec.get(f));
            }
        }
        StringBuilder sb = new StringBuilder(rec.get("experiment") + "/" + rec.get("backend"));
        if (k > 0) {
            sb.append(" #").append(k + 1);
        }
        if (!shown.isEmpty()) {
            sb.append(' ').append(shown.toString().replace("{", "(").replace("}", ")").replace(", ", " "));
        }
        return sb.toString();
    }
}
