// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The curated report: one section per result of "GPU-Initiated Communication: Dissecting Down to the
 * Bone" (report-sections.json), each with the paper's values for its sources (paper-references.json)
 * beside our tables of the newest run of each configuration, and a link to the results page that names
 * the commands, builds and raw inputs (earlier runs are in git history). The environment is shown once
 * per build. A section none of whose tables the inputs give
 * is left out and named, so no section is ever empty.
 */
final class CuratedReport {
    private CuratedReport() {
    }

    /** The sections' HTML and the ids of those left out (no table of ours among the inputs). */
    record Body(String html, List<String> shown, List<String> missing) {
    }

    static Body body(Map<String, String> tables, List<ResultFile> files) {
        return body(tables, files, null);
    }

    /**
     * The sections; with dir, a section whose spec has a chart also gets it, drawn into dir/charts/ID.png
     * from the chart's generated table and the paper's values (SectionChart).
     */
    static Body body(Map<String, String> tables, List<ResultFile> files, java.nio.file.Path dir) {
        StringBuilder sb = new StringBuilder();
        List<String> shown = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        PaperReferences refs = PaperReferences.get();
        StringBuilder toc = new StringBuilder("<nav><ol>\n");
        StringBuilder secs = new StringBuilder();
        for (ReportSpec.Entry e : ReportSpec.get().sections()) {
            List<String> ours = e.tables().stream().filter(tables::containsKey).toList();
            if (ours.isEmpty()) {
                missing.add(e.id());
                continue;
            }
            shown.add(e.id());
            List<Map<String, Object>> recs = new ArrayList<>();
            for (ResultFile f : files) {
                String m = RawArchive.member(f.path());
                String where = m != null ? m : f.path().toString().replace('\\', '/');
                if (e.pages().stream().anyMatch(p -> where.startsWith(p + "/") || where.contains("/" + p + "/"))) {
                    recs.addAll(f.records());
                }
            }
            Provenance prov = recs.isEmpty() ? null : Provenance.of(recs);
            toc.append("<li><a href=\"#").append(e.id()).append("\">").append(Html.escape(e.title())).append("</a></li>\n");
            secs.append("<section data-paper=\"yes\" id=\"").append(e.id()).append("\"")
                    .append(prov == null ? "" : " class=\"" + prov.cssClass() + "\"").append(">\n<h2>")
                    .append(Html.escape(e.title()));
            if (prov != null) {
                secs.append(" <span class=\"badge ").append(prov.cssClass()).append("\">").append(prov.label())
                        .append("</span>");
            }
            secs.append("</h2>\n");
            if (prov != null) {
                secs.append("<p class=\"note\">Ours: ").append(Html.escape(Provenance.detail(recs))).append(".</p>\n");
            }
            secs.append("<h3>The paper (reference)</h3>\n");
            for (String src : e.paper()) {
                secs.append(markdownTable(refs.markdown(src), src + " — " + refs.bySource(src).getFirst().platform()
                        + (refs.bySource(src).stream().map(PaperReferences.Ref::platform).distinct().count() > 1
                        ? " and others" : ""), true));
            }
            SectionChart chart = e.chart();
            if (dir != null && chart != null && tables.containsKey(chart.table())) {
                List<String> bad = chart.check();
                if (!bad.isEmpty()) {
                    throw new IllegalStateException("report-sections.json, chart of " + e.id() + ": "
                            + String.join("; ", bad));
                }
                String png = "charts/" + e.id() + ".png";
                String tag = prov == Provenance.EMULATED ? " — EMULATED NIC"
                        : prov == Provenance.MIXED ? " — EMULATED NIC (mixed with hardware)" : "";
                if (chart.write(tables.get(chart.table()), dir.resolve(png), tag)) {
                    secs.append("<figure><img src=\"").append(png).append("\" alt=\"").append(Html.escape(chart.title()))
                            .append("\"><figcaption>").append(Html.escape(chart.title() + tag)).append(": ours from table ")
                            .append(Html.escape(chart.table())).append(" (filled marks and bars); the paper's values as hollow "
                            + "black squares or dashed lines.</figcaption></figure>\n");
                }
            }
            secs.append("<h3>Ours: newest run of each configuration</h3>\n");
            for (String t : ours) {
                secs.append(markdownTable(tables.get(t), t, false));
            }
            secs.append("<p class=\"history\">Commands, builds and raw inputs: ");
            List<String> links = new ArrayList<>();
            for (String p : e.pages()) {
                links.add("<a href=\"docs/results/" + p + ".md\">docs/results/" + p + ".md</a>");
            }
            secs.append(String.join(", ", links)).append(" (in the repository; earlier runs are in its git history, "
                    + "docs/results/README.md).</p>\n</section>\n");
        }
        toc.append("</ol></nav>\n");
        sb.append(toc).append(environment(files)).append(secs);
        if (!missing.isEmpty()) {
            sb.append("<p class=\"note\">Sections with no table of ours in these inputs (left out): ")
                    .append(Html.escape(String.join(", ", missing))).append(".</p>\n");
        }
        return new Body(sb.toString(), shown, missing);
    }

    /** One row per build (git SHA): GPU, host, components, and how many files it wrote. */
    static String environment(List<ResultFile> files) {
        Map<String, List<ResultFile>> byBuild = new TreeMap<>();
        for (ResultFile f : files) {
            Object sha = f.env().get("git_sha");
            byBuild.computeIfAbsent(sha == null ? "(no header)" : sha + (Boolean.TRUE.equals(f.env().get("git_dirty"))
                    ? "+dirty" : ""), k -> new ArrayList<>()).add(f);
        }
        Table.Builder t = new Table.Builder("The environment, once per build (from the result files' headers)")
                .col("build", "files", "first start", "GPU", "SMs", "host CPU", "cpus", "native components", "CUDA");
        for (Map.Entry<String, List<ResultFile>> e : byBuild.entrySet()) {
            Map<String, Object> env = e.getValue().getFirst().env();
            String first = e.getValue().stream().map(f -> String.valueOf(f.env().getOrDefault("start_time", "")))
                    .filter(s -> !s.isEmpty()).sorted().findFirst().orElse("—");
            t.row(e.getKey(), String.valueOf(e.getValue().size()), first.length() > 19 ? first.substring(0, 19) : first,
                    s(env, "gpu0_name"), s(env, "gpu0_sm_count"), s(env, "cpu_model"), s(env, "cpu_count"),
                    s(env, "native_components"), s(env, "cuda_runtime"));
        }
        return "<details id=\"environment\"><summary>Environment: " + byBuild.size()
                + " builds</summary>\n" + t.build().html() + "</details>\n";
    }

    private static String s(Map<String, Object> env, String k) {
        Object v = env.get(k);
        return v == null ? "—" : String.valueOf(v);
    }

    /** A generated markdown table as HTML; columns headed paper, study or reference are reference cells. */
    static String markdownTable(String md, String caption, boolean allReference) {
        List<List<String>> rows = new ArrayList<>();
        for (String line : md.split("\n")) {
            String l = line.strip();
            if (!l.startsWith("|")) {
                continue;
            }
            List<String> cells = cells(l);
            if (cells.stream().allMatch(c -> c.matches(":?-+:?"))) {
                continue; // the alignment row
            }
            rows.add(cells);
        }
        StringBuilder sb = new StringBuilder("<table><caption>").append(Html.escape(caption)).append("</caption>\n");
        if (rows.isEmpty()) {
            return sb.append("</table>\n").toString();
        }
        List<String> head = rows.getFirst();
        boolean[] ref = new boolean[head.size()];
        sb.append("<tr>");
        for (int i = 0; i < head.size(); i++) {
            String h = head.get(i).toLowerCase(java.util.Locale.ROOT);
            ref[i] = allReference || h.contains("paper") || h.contains("study") || h.contains("reference");
            sb.append(ref[i] ? "<th class=\"ref\">" : "<th>").append(Html.inline(head.get(i))).append("</th>");
        }
        sb.append("</tr>\n");
        for (List<String> r : rows.subList(1, rows.size())) {
            sb.append("<tr>");
            for (int i = 0; i < r.size(); i++) {
                sb.append(i < ref.length && ref[i] ? "<td class=\"ref\">" : "<td>").append(Html.inline(r.get(i)))
                        .append("</td>");
            }
            sb.append("</tr>\n");
        }
        return sb.append("</table>\n").toString();
    }

    /** The cells of one markdown row; an escaped "\|" stays inside its cell. */
    private static List<String> cells(String row) {
        List<String> out = new ArrayList<>();
        StringBuilder c = new StringBuilder();
        for (int i = 1; i < row.length(); i++) {
            char ch = row.charAt(i);
            if (ch == '\\' && i + 1 < row.length() && row.charAt(i + 1) == '|') {
                c.append("\\|");
                i++;
            } else if (ch == '|') {
                out.add(c.toString().strip());
                c.setLength(0);
            } else {
                c.append(ch);
            }
        }
        return out;
    }
}
