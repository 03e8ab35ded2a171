// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static dev.marrow.report.DsmDocTables.signedPct;
import static dev.marrow.report.Fmt.fixed;
import static dev.marrow.report.Fmt.num;
import static dev.marrow.report.Fmt.str;

/**
 * Tables of the "Run 2" section of docs/results/h200-dsm.md: the probes E11-E16
 * and the INFLIGHT_BYTES load-width sweep (h200-dsm/run2/*.jsonl), with the default
 * kernel's E2 of the width call (h200-dsm/width-default.jsonl) as the control's
 * comparison. Study values come from the records' {@code reference_*} fields.
 */
final class DsmWidthSweepDocTables {
    private DsmWidthSweepDocTables() {
    }

    private static final String DIR = "h200-dsm/run2/";
    static final String E11 = DIR + "e11-offset.jsonl";
    static final String E12 = DIR + "e12-pressure.jsonl";
    static final String E13 = DIR + "e13-burst.jsonl";
    static final String E14 = DIR + "e14-store.jsonl";
    static final String E15 = DIR + "e15-ring16.jsonl";
    static final String E16 = DIR + "e16-model.jsonl";
    static final String E3_DEFAULT = DIR + "e3-default.jsonl";
    static final List<Integer> LOAD_WIDTHS = List.of(16, 8, 4);
    static final String DEFAULT_E2 = "h200-dsm/width-default.jsonl";

    /** The INFLIGHT_BYTES kernel keeps this many bytes in flight per thread at every width (docs/design/methods.md §4.1). */
    static final int BYTES_IN_FLIGHT_PER_THREAD = 208;

    /** E15: a receiver counts as slow when its 1/β is this much below the ring's fastest receiver. */
    static final double SLOW_RECEIVER_PCT = 5;

    static String bytesFile(int width) {
        return DIR + "e2-bytes-" + width + ".jsonl";
    }

    static final List<String> FILES;

    static {
        List<String> f = new ArrayList<>(List.of(E11, E12, E13, E14, E15, E16, E3_DEFAULT, DEFAULT_E2));
        LOAD_WIDTHS.forEach(w -> f.add(bytesFile(w)));
        FILES = List.copyOf(f);
    }

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        t.put("dsm.E11", offset(in.records(E11)));
        t.put("dsm.E12", pressure(in.records(E12)));
        t.put("dsm.E13.cold", cold(in.records(E13)));
        t.put("dsm.E13.bursts", bursts(in.records(E13)));
        t.put("dsm.E14", storeVariants(in.records(E14), in.records(E3_DEFAULT)));
        t.put("dsm.E15", ring16(in.records(E15)));
        t.put("dsm.E16", model(in.records(E16)));
        t.put("dsm.load_bytes", loadBytes(in));
        return t;
    }

    private static List<Map<String, Object>> rows(List<Map<String, Object>> rs, String row) {
        return rs.stream().filter(r -> row.equals(r.get("row"))).toList();
    }

    private static double median(List<Double> v) {
        return dev.marrow.results.Stats.median(v.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** "median (min..max)" of per-offset medians. */
    private static String spread(List<Double> v) {
        double lo = v.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double hi = v.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return fixed(median(v), 1) + " (" + fixed(lo, 1) + ".." + fixed(hi, 1) + ")";
    }

    private static String kindName(String kind) {
        return kind.equals("tma") ? "TMA" : kind;
    }

    /** E11: the range of the per-offset medians, and the medians split by the offset's 64-B alignment. */
    private static String offset(List<Map<String, Object>> rs) {
        Table.Builder t = new Table.Builder(null).col("stream", "min..max median, cycles", "range, cycles",
                "range, ns", "slowest offset", "offsets ≡ 0 mod 64: median (min..max)", "offsets ≡ 32 mod 64: median (min..max)")
                .ref("the study (range)").align("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Map<String, Object> s : rows(rs, "summary")) {
            String kind = str(s, "kind");
            Map<Boolean, List<Double>> byAlign = rows(rs, "offset").stream().filter(r -> kind.equals(r.get("kind")))
                    .collect(Collectors.partitioningBy(r -> (long) num(r, "offset_bytes") % 64 == 0,
                            Collectors.mapping(r -> num(r, "median_cycles"), Collectors.toList())));
            t.row(kindName(kind) + " 1->0", fixed(num(s, "min_median_cycles"), 1) + ".." + fixed(num(s, "max_median_cycles"), 1),
                    fixed(num(s, "range_cycles_pct"), 2) + " %", fixed(num(s, "range_ns_pct"), 2) + " %",
                    fixed(num(s, "slowest_offset_bytes"), 0) + " B",
                    spread(byAlign.get(true)), spread(byAlign.get(false)),
                    fixed(num(s, "reference_range_cycles_pct"), 2) + " %");
        }
        return t.build().markdown();
    }

    /** E12: completion cycles per pressure configuration, by where the pressure ran and its bank pattern. */
    private static String pressure(List<Map<String, Object>> rs) {
        Map<String, Object> sum = rows(rs, "summary").getFirst();
        String ref = fixed(num(sum, "reference_min_cycles"), 0) + "..." + fixed(num(sum, "reference_max_cycles"), 0)
                + " (" + fixed(num(sum, "reference_range_cycles_pct"), 2) + " %)";
        List<Map<String, Object>> p = rows(rs, "pressure");
        List<Long> warps = p.stream().map(r -> (long) num(r, "pressure_warps")).filter(w -> w > 0).distinct().sorted().toList();
        Table.Builder t = new Table.Builder(null).col("pressure on", "pattern",
                "median cycles at " + warps.stream().map(String::valueOf).collect(Collectors.joining(" / ")) + " warps",
                "max vs unpressured", "pressure accesses/cycle at " + warps.getLast() + " warps")
                .ref("the study").align("| --- | --- | --- | --- | --- | --- |");
        for (Map<String, Object> r : p) {
            if (num(r, "pressure_warps") == 0) {
                t.row("none (baseline)", "—", fixed(num(r, "median_cycles"), 0), "—", "—", ref);
            }
        }
        Map<String, List<Map<String, Object>>> groups = new LinkedHashMap<>();
        for (Map<String, Object> r : p) {
            if (num(r, "pressure_warps") > 0) {
                groups.computeIfAbsent(str(r, "where") + "|" + str(r, "pattern"), k -> new ArrayList<>()).add(r);
            }
        }
        for (List<Map<String, Object>> g : groups.values()) {
            Function<Long, Map<String, Object>> at = w -> g.stream().filter(r -> (long) num(r, "pressure_warps") == w)
                    .findFirst().orElseThrow();
            double maxDev = g.stream().mapToDouble(r -> num(r, "vs_baseline_pct")).max().orElseThrow();
            t.row(str(g.getFirst(), "where"), str(g.getFirst(), "pattern"),
                    warps.stream().map(w -> fixed(num(at.apply(w), "median_cycles"), 0)).collect(Collectors.joining(" / ")),
                    signedPct(maxDev), fixed(num(at.apply(warps.getLast()), "pressure_accesses_per_cycle"), 2), ref);
        }
        return t.build().markdown();
    }

    /** E13 (a): cold 1..16 KiB transfers, fastest 8-size window vs the whole range and the steady slope. */
    private static String cold(List<Map<String, Object>> rs) {
        Table.Builder t = new Table.Builder(null).col("stream", "fastest 8-size window, B/cycle", "window",
                "1..16 KiB fit, B/cycle (RMSE % rise)", "steady 16..96 KiB, B/cycle", "fastest / steady")
                .ref("the study: no material rate above").align("| --- | --- | --- | --- | --- | --- | --- |");
        for (Map<String, Object> s : rows(rs, "summary")) {
            if (!"cold".equals(s.get("part"))) {
                continue;
            }
            Map<String, Object> fit = rows(rs, "fit").stream().filter(r -> str(s, "series").equals(r.get("series")))
                    .findFirst().orElseThrow();
            t.row(kindName(str(s, "kind")) + " 1->0", fixed(num(s, "burst_max_b_per_cycle"), 2), str(s, "window_bytes") + " B",
                    fixed(num(s, "whole_range_b_per_cycle"), 2) + " (" + fixed(num(fit, "rmse_share_of_rise_cycles_pct"), 1) + ")",
                    fixed(num(s, "steady_b_per_cycle"), 2), fixed(num(s, "burst_max_over_steady"), 3),
                    fixed(num(s, "reference_ceiling_b_per_cycle"), 1));
        }
        return t.build().markdown();
    }

    /** E13 (b): 8 bursts with idle gaps; rate while busy per gap. */
    private static String bursts(List<Map<String, Object>> rs) {
        List<Map<String, Object>> fits = rows(rs, "fit").stream().filter(r -> "bursts".equals(r.get("part"))).toList();
        String ref = rows(rs, "summary").stream().filter(r -> "bursts".equals(r.get("part")))
                .map(r -> fixed(num(r, "reference_ceiling_b_per_cycle"), 1)).findFirst().orElseThrow();
        Table.Builder t = new Table.Builder(null).col("stream", "gap, idle cycles", "busy B/cycle", "α cycles",
                "RMSE % rise (cycles)", "median busy cycles, smallest / largest tile").ref("the study: no material rate above")
                .align("| --- | --- | --- | --- | --- | --- | --- |");
        for (Map<String, Object> f : fits) {
            String series = str(f, "series");
            List<Map<String, Object>> pts = rows(rs, "point").stream().filter(r -> series.equals(r.get("series"))).toList();
            t.row(series.substring(0, series.indexOf(" 8 bursts")), fixed(num(f, "gap_cycles"), 0),
                    fixed(num(f, "inv_beta_b_per_cycle"), 2), fixed(num(f, "alpha_cycles"), 0),
                    fixed(num(f, "rmse_share_of_rise_cycles_pct"), 1),
                    fixed(num(pts.getFirst(), "median_cycles"), 1) + " / " + fixed(num(pts.getLast(), "median_cycles"), 1), ref);
        }
        return t.build().markdown();
    }

    /** E14: every store variant's fit beside the study's 18.87, then E3 of the default build in the same call. */
    private static String storeVariants(List<Map<String, Object>> rs, List<Map<String, Object>> e3) {
        Table.Builder t = new Table.Builder(null).col("variant (issue, stores per batch, end, width)", "build", "B/cycle",
                "α cycles", "RMSE % rise (cycles / ns)").ref("the study").col("ours vs the study")
                .align("| --- | --- | --- | --- | --- | --- | --- |");
        for (Map<String, Object> r : rows(rs, "fit")) {
            t.row(str(r, "variant"), "probe", fixed(num(r, "inv_beta_b_per_cycle"), 2), fixed(num(r, "alpha_cycles"), 0),
                    fixed(num(r, "rmse_share_of_rise_cycles_pct"), 2) + " / " + fixed(num(r, "rmse_share_of_rise_ns_pct"), 2),
                    fixed(num(r, "reference_inv_beta_b_per_cycle"), 2), signedPct(num(r, "vs_reference_pct")));
        }
        for (Map<String, Object> r : rows(e3, "fit")) {
            t.row("E3 " + str(r, "series") + " (cluster u4 fence w16)", "default", fixed(num(r, "inv_beta_b_per_cycle"), 2),
                    fixed(num(r, "alpha_cycles"), 0),
                    fixed(num(r, "rmse_share_of_rise_cycles_pct"), 2) + " / " + fixed(num(r, "rmse_share_of_rise_ns_pct"), 2),
                    fixed(num(r, "reference_inv_beta_b_per_cycle"), 2), signedPct(num(r, "vs_reference_pct")));
        }
        Map<String, Object> s = rows(rs, "summary").getFirst();
        t.row("closest: " + str(s, "closest_variant"), "", "", "", "", fixed(num(s, "reference_b_per_cycle"), 2),
                signedPct(num(s, "closest_diff_pct")));
        return t.build().markdown();
    }

    /** E15: per-SM 1/β of each TMA ring, its receivers' spread and the slowest receivers. */
    private static String ring16(List<Map<String, Object>> rs) {
        Table.Builder t = new Table.Builder(null).col("ring", "cluster", "per-SM B/cycle", "receivers min..max",
                "receivers > " + fixed(SLOW_RECEIVER_PCT, 0) + " % below the fastest", "slowest receivers")
                .ref("the study").col("ours vs the study").align("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Map<String, Object> r : rows(rs, "summary")) {
            if (!(r.get("per_sm_b_per_cycle") instanceof Number)) {
                continue;
            }
            List<Double> receivers = rows(rs, "fit").stream().filter(f -> str(f, "layout").equals(str(r, "layout"))
                            && num(f, "k") == num(r, "k") && num(f, "cluster_size") == num(r, "cluster_size"))
                    .map(f -> num(f, "inv_beta_b_per_cycle")).toList();
            double fastest = receivers.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            long slow = receivers.stream().filter(b -> b < fastest * (1 - SLOW_RECEIVER_PCT / 100)).count();
            t.row(str(r, "series").replace("tma ring ", "").replace(", cluster 8", ""), fixed(num(r, "cluster_size"), 0),
                    fixed(num(r, "per_sm_b_per_cycle"), 2),
                    fixed(num(r, "min_sm_b_per_cycle"), 2) + ".." + fixed(num(r, "max_sm_b_per_cycle"), 2),
                    slow + " of " + receivers.size(),
                    str(r, "slowest_receivers"), "≈" + fixed(num(r, "reference_per_sm_b_per_cycle"), 0),
                    signedPct(num(r, "vs_reference_pct")));
        }
        return t.build().markdown();
    }

    /** E16: the study's lane/flit model on our fits beside the same model on the study's inputs. */
    private static String model(List<Map<String, Object>> rs) {
        List<Map<String, Object>> s = rows(rs, "summary");
        Map<String, Object> ours = s.stream().filter(r -> "ours".equals(r.get("inputs"))).findFirst().orElseThrow();
        Map<String, Object> study = s.stream().filter(r -> "study".equals(r.get("inputs"))).findFirst().orElseThrow();
        Table.Builder t = new Table.Builder(null).col("figure", "model on ours", "model on the study's inputs")
                .ref("the study (published)").align("| --- | --- | --- | --- |");
        t.row("one-way load, B/cycle (input)", fixed(num(ours, "one_way_b_per_cycle"), 3), fixed(num(study, "one_way_b_per_cycle"), 3),
                fixed(num(study, "one_way_b_per_cycle"), 3));
        t.row("duplex read per direction, measured", fixed(num(ours, "duplex_b_per_cycle"), 3),
                fixed(num(study, "duplex_b_per_cycle"), 3), fixed(num(ours, "reference_duplex_b_per_cycle"), 3));
        t.row("duplex predicted (× 128/160)", fixed(num(ours, "predicted_duplex_b_per_cycle"), 3),
                fixed(num(study, "predicted_duplex_b_per_cycle"), 3), fixed(num(ours, "reference_predicted_duplex_b_per_cycle"), 2));
        t.row("prediction vs measured", signedPct(num(ours, "prediction_above_measured_pct")),
                signedPct(num(study, "prediction_above_measured_pct")),
                signedPct(100 * (num(ours, "reference_predicted_duplex_b_per_cycle") / num(ours, "reference_duplex_b_per_cycle") - 1)));
        t.row("loss vs one-way: measured / predicted", fixed(num(ours, "measured_loss_pct"), 1) + " % / "
                + fixed(num(ours, "predicted_loss_pct"), 1) + " %", fixed(num(study, "measured_loss_pct"), 1) + " % / "
                + fixed(num(study, "predicted_loss_pct"), 1) + " %", "—");
        t.row("cycles per 128 B, one way → duplex", fixed(num(ours, "cycles_per_128b_one_way"), 3) + " → "
                        + fixed(num(ours, "cycles_per_128b_duplex"), 3),
                fixed(num(study, "cycles_per_128b_one_way"), 3) + " → " + fixed(num(study, "cycles_per_128b_duplex"), 3),
                fixed(num(ours, "reference_cycles_per_128b_one_way"), 3) + " → "
                        + fixed(num(ours, "reference_cycles_per_128b_duplex"), 3));
        t.row("extra cycles per 128 B (one flit = " + fixed(num(ours, "cycles_per_flit"), 1) + ")",
                fixed(num(ours, "extra_cycles_per_128b"), 3), fixed(num(study, "extra_cycles_per_128b"), 3),
                fixed(num(ours, "reference_cycles_per_128b_duplex") - num(ours, "reference_cycles_per_128b_one_way"), 3));
        t.row("one-way / the model's 21.33 cap", fixed(num(ours, "utilisation"), 3), fixed(num(study, "utilisation"), 3), "—");
        return t.build().markdown();
    }

    /** INFLIGHT_BYTES E2 at 16/8/4 B, then the default INFLIGHT kernel's E2 of the width call. */
    private static String loadBytes(DocTables.Inputs in) {
        Table.Builder t = new Table.Builder(null).col("kernel, width", "loads per thread per wait",
                "1->0 / 0->1 / 1->0 cl16, B/cycle", "GB/s", "α cycles", "RMSE % rise (cycles / ns)",
                "end to end at 96 KiB, B/cycle").ref("the study (16 B)").align("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (int w : LOAD_WIDTHS) {
            t.row(loadRow("INFLIGHT_BYTES, " + w + " B", String.valueOf(BYTES_IN_FLIGHT_PER_THREAD / w),
                    rows(in.records(bytesFile(w)), "fit"), in.records(bytesFile(w))));
        }
        List<Map<String, Object>> def = in.records(DEFAULT_E2).stream().filter(r -> "dsm.E2".equals(r.get("experiment"))).toList();
        t.row(loadRow("INFLIGHT (default build, width call), 16 B", "≤ 13", rows(def, "fit"), def));
        return t.build().markdown();
    }

    private static List<String> loadRow(String name, String loads, List<Map<String, Object>> fits, List<Map<String, Object>> all) {
        String slopes = fits.stream().map(r -> fixed(num(r, "inv_beta_b_per_cycle"), 2)).collect(Collectors.joining(" / "));
        String gbs = range(fits, "inv_beta_gb_s", 1);
        String alpha = range(fits, "alpha_cycles", 0);
        String rmse = range(fits, "rmse_share_of_rise_cycles_pct", 1) + " / " + range(fits, "rmse_share_of_rise_ns_pct", 1);
        double top = all.stream().filter(r -> "point".equals(r.get("row"))).mapToDouble(r -> num(r, "size_bytes")).max().orElseThrow();
        String e2e = all.stream().filter(r -> "point".equals(r.get("row")) && num(r, "size_bytes") == top)
                .map(r -> fixed(top / num(r, "median_cycles"), 2)).collect(Collectors.joining(" / "));
        return List.of(name, loads, slopes, gbs, alpha, rmse, e2e, fixed(num(fits.getFirst(), "reference_inv_beta_b_per_cycle"), 2));
    }

    private static String range(List<Map<String, Object>> rs, String key, int digits) {
        double lo = rs.stream().mapToDouble(r -> num(r, key)).min().orElseThrow();
        double hi = rs.stream().mapToDouble(r -> num(r, key)).max().orElseThrow();
        String a = fixed(lo, digits);
        String b = fixed(hi, digits);
        return a.equals(b) ? a : a + "–" + b;
    }
}
