// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A table for the report and the results docs. Columns whose values are the
 * published (by "GPU-Initiated Communication: Dissecting Down to the Bone", or
 * for DSM by "How does Hopper distributed shared memory actually move data?") are flagged, so HTML shades them and labels
 * them "reference"; markdown carries the word in the header.
 */
public record Table(String caption, List<String> header, List<Boolean> reference, List<List<String>> rows,
                    String align) {
    public Table {
        if (reference.size() != header.size()) {
            throw new IllegalArgumentException("reference flags do not match the header");
        }
        for (List<String> r : rows) {
            if (r.size() != header.size()) {
                throw new IllegalArgumentException("row width " + r.size() + " != header width " + header.size()
                        + " in " + caption);
            }
        }
    }

    /** Builder-style construction; {@code ref(..)} adds a reference column. */
    public static final class Builder {
        private final String caption;
        private final List<String> header = new ArrayList<>();
        private final List<Boolean> reference = new ArrayList<>();
        private final List<List<String>> rows = new ArrayList<>();
        private String align;

        public Builder(String caption) {
            this.caption = caption;
        }

        public Builder col(String... names) {
            for (String n : names) {
                header.add(n);
                reference.add(false);
            }
            return this;
        }

        public Builder ref(String... names) {
            for (String n : names) {
                header.add(n);
                reference.add(true);
            }
            return this;
        }

        /** Markdown alignment row, e.g. "|---|---:|"; default all "---". */
        public Builder align(String a) {
            this.align = a;
            return this;
        }

        public Builder row(List<String> cells) {
            rows.add(List.copyOf(cells));
            return this;
        }

        public Builder row(String... cells) {
            return row(List.of(cells));
        }

        public Table build() {
            return new Table(caption, List.copyOf(header), List.copyOf(reference), List.copyOf(rows), align);
        }
    }

    public String markdown() {
        StringBuilder sb = new StringBuilder("| ").append(String.join(" | ", header)).append(" |\n");
        if (align != null) {
            sb.append(align).append('\n');
        } else {
            sb.append('|').append("---|".repeat(header.size())).append('\n');
        }
        for (List<String> r : rows) {
            sb.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        return sb.toString();
    }

    public String html() {
        StringBuilder sb = new StringBuilder("<table>\n");
        if (caption != null && !caption.isEmpty()) {
            sb.append("<caption>").append(Html.inline(caption)).append("</caption>\n");
        }
        sb.append("<thead><tr>");
        for (int i = 0; i < header.size(); i++) {
            sb.append(reference.get(i) ? "<th class=\"ref\">" : "<th>").append(Html.inline(header.get(i)))
                    .append(reference.get(i) ? " <span class=\"reftag\">reference</span>" : "").append("</th>");
        }
        sb.append("</tr></thead>\n<tbody>\n");
        for (List<String> r : rows) {
            sb.append("<tr>");
            for (int i = 0; i < r.size(); i++) {
                sb.append(reference.get(i) ? "<td class=\"ref\">" : "<td>").append(Html.inline(r.get(i))).append("</td>");
            }
            sb.append("</tr>\n");
        }
        return sb.append("</tbody></table>\n").toString();
    }
}
