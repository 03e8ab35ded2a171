// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The report's sections as data ({@code report-sections.json}): one per result of "GPU-Initiated
 * Communication: Dissecting Down to the Bone" (and the findings of "How does Hopper distributed shared
 * memory actually move data?"), each naming the sources and the generated page tables that hold our newest runs. No section is a Java class: a new
 * result is a new entry here.
 */
public record ReportSpec(List<Entry> sections) {
    /** One section: its anchor, title, the paper's sources, the results pages it draws on, our tables. */
    public record Entry(String id, String title, List<String> paper, List<String> pages, List<String> tables,
            SectionChart chart) {
    }

    public static ReportSpec get() {
        try (InputStream in = ReportSpec.class.getResourceAsStream("report-sections.json")) {
            if (in == null) {
                throw new IllegalStateException("report-sections.json missing from the class path");
            }
            JsonNode root = JsonMapper.builder().build().readTree(in);
            List<Entry> l = new ArrayList<>();
            for (JsonNode s : root.get("sections")) {
                l.add(new Entry(s.get("id").asString(), s.get("title").asString(), strings(s.get("paper")),
                        strings(s.get("pages")), strings(s.get("tables")), chart(s.get("chart"))));
            }
            return new ReportSpec(List.copyOf(l));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The section's chart (key {@code chart}), or null where the paper has no figure for it. */
    private static SectionChart chart(JsonNode c) {
        if (c == null || c.isNull()) {
            return null;
        }
        java.util.Map<String, String> where = new java.util.LinkedHashMap<>();
        if (c.has("where")) {
            c.get("where").properties().forEach(e -> where.put(e.getKey(), e.getValue().asString()));
        }
        List<SectionChart.Ref> refs = new ArrayList<>();
        if (c.has("paper")) {
            for (JsonNode r : c.get("paper")) {
                refs.add(new SectionChart.Ref(r.get("id").asString(), r.has("at") ? r.get("at").asString() : null,
                        r.has("series") ? r.get("series").asString() : null));
            }
        }
        JsonNode x = c.get("x");
        List<String> xs = x.isArray() ? strings(x) : List.of(x.asString());
        JsonNode y = c.get("y");
        List<String> ys = y.isArray() ? strings(y) : List.of(y.asString());
        return new SectionChart(c.get("table").asString(), c.get("kind").asString(), xs, ys,
                c.has("series") ? c.get("series").asString() : null, c.has("scale") ? c.get("scale").asDouble() : 1.0,
                c.has("logX") && c.get("logX").asBoolean(), c.get("title").asString(), c.get("xAxis").asString(),
                c.get("yAxis").asString(), java.util.Map.copyOf(where), List.copyOf(refs),
                c.has("refColumn") ? c.get("refColumn").asString() : null);
    }

    private static List<String> strings(JsonNode a) {
        List<String> l = new ArrayList<>();
        a.forEach(n -> l.add(n.asString()));
        return List.copyOf(l);
    }
}
