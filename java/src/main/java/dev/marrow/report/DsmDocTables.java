// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.fixed;
import static dev.marrow.report.Fmt.num;
import static dev.marrow.report.Fmt.str;

/**
 * Tables of docs/results/h200-dsm.md computed from the full run
 * (h200-dsm/h200-dsm.jsonl). References come from the records'
 * {@code reference_*} fields, written by the suite from {@code dev.marrow.dsm.Reference}.
 */
final class DsmDocTables {
    private DsmDocTables() {
    }

    static final String FULL = "h200-dsm/h200-dsm.jsonl";
    static final List<String> FILES = List.of(FULL);

    static Map<String, String> tables(DocTables.Inputs in) {
        List<Map<String, Object>> rs = in.records(FULL);
        Map<String, String> t = new LinkedHashMap<>();
        t.put("dsm.one_way", oneWay(rs));
        t.put("dsm.E5", bidirectional(rs));
        t.put("dsm.E7", ring(rs));
        return t;
    }

    private static List<Map<String, Object>> rows(List<Map<String, Object>> rs, String exp, String row) {
        return rs.stream().filter(r -> exp.equals(r.get("experiment")) && row.equals(r.get("row"))).toList();
    }

    /** "+8.6 %" / "−0.2 %" (a real minus sign, as the docs write it). */
    static String signedPct(double v) {
        String s = fixed(Math.abs(v), 1);
        return (v < 0 && !s.matches("0\\.0") ? "−" : "+") + s + " %";
    }

    private static String oneWay(List<Map<String, Object>> rs) {
        Table.Builder t = new Table.Builder(null).col("experiment", "ours B/cycle", "GB/s", "α cycles",
                "RMSE % rise (cycles)").ref("reference (study)").col("diff").align("| --- | --- | --- | --- | --- | --- | --- |");
        for (String e : List.of("E2", "E3", "E4")) {
            for (Map<String, Object> r : rows(rs, "dsm." + e, "fit")) {
                t.row(e + " " + str(r, "series").replace("tma", "TMA"), fixed(num(r, "inv_beta_b_per_cycle"), 2),
                        fixed(num(r, "inv_beta_gb_s"), 1), fixed(num(r, "alpha_cycles"), 0),
                        fixed(num(r, "rmse_share_of_rise_cycles_pct"), 2),
                        fixed(num(r, "reference_inv_beta_b_per_cycle"), 2), signedPct(num(r, "vs_reference_pct")));
            }
        }
        return t.build().markdown();
    }

    private static String bidirectional(List<Map<String, Object>> rs) {
        Table.Builder t = new Table.Builder(null).col("kind", "ours per direction", "ours loss")
                .ref("study per direction", "study loss").align("| --- | --- | --- | --- | --- |");
        for (Map<String, Object> r : rows(rs, "dsm.E5", "summary")) {
            String kind = str(r, "kind");
            t.row(kind.equals("tma") ? "TMA" : kind, fixed(num(r, "per_direction_b_per_cycle"), 2),
                    fixed(num(r, "loss_vs_one_way_pct"), 1) + " %", fixed(num(r, "reference_per_direction_b_per_cycle"), 2),
                    fixed(num(r, "reference_loss_pct"), 2) + " %");
        }
        return t.build().markdown();
    }

    private static String ring(List<Map<String, Object>> rs) {
        Table.Builder t = new Table.Builder(null).col("SMs", "per-SM B/cycle", "slowest receiver B/cycle",
                "α per-SM / slowest").ref("reference").align("| --- | --- | --- | --- | --- |");
        List<Map<String, Object>> s = new ArrayList<>(rows(rs, "dsm.E7", "summary"));
        for (Map<String, Object> r : s) {
            String ref = "≈" + Fmt.plain(Math.round(num(r, "reference_per_sm_b_per_cycle")));
            if (r.get("reference_alpha_cycles") instanceof Number a) {
                ref += ", α ≈ " + Math.round(a.doubleValue());
            }
            t.row(str(r, "ring"), fixed(num(r, "per_sm_b_per_cycle"), 2), fixed(num(r, "slowest_b_per_cycle"), 2),
                    fixed(num(r, "per_sm_alpha_cycles"), 0) + " / " + fixed(num(r, "slowest_alpha_cycles"), 0), ref);
        }
        return t.build().markdown();
    }
}
