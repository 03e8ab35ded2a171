// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The published values of "GPU-Initiated Communication: Dissecting Down to the
 * Bone", read from the one data file {@code paper-references.json}. Each value
 * names its table or figure; the report prints them as references only.
 */
public final class PaperReferences {
    /**
     * One published value. {@code source} is a table/figure/section of the paper; {@code preset} names the
     * library preset (docs/design/presets.md) whose row it is, or is null.
     */
    public record Ref(String id, double value, String unit, String platform, String source, String what,
                      String preset) {
        /** "paper P-IB, Table 4" */
        public String citation() {
            return "paper " + platform + ", " + source;
        }
    }

    private static final PaperReferences INSTANCE = load();

    private final String paper;
    private final String about;
    private final Map<String, Ref> values;

    private PaperReferences(String paper, String about, Map<String, Ref> values) {
        this.paper = paper;
        this.about = about;
        this.values = Collections.unmodifiableMap(values);
    }

    public static PaperReferences get() {
        return INSTANCE;
    }

    public String paper() {
        return paper;
    }

    public String about() {
        return about;
    }

    public Collection<Ref> all() {
        return values.values();
    }

    /** The value with that id; a missing id is a programming error and fails loudly. */
    public Ref ref(String id) {
        Ref r = values.get(id);
        if (r == null) {
            throw new IllegalStateException("paper-references.json has no value '" + id + "'");
        }
        return r;
    }

    /** Every value of one table, figure or section ({@code source}), in file order. */
    public java.util.List<Ref> bySource(String source) {
        return values.values().stream().filter(r -> r.source().equals(source)).toList();
    }

    /** Every distinct source, in file order. */
    public java.util.List<String> sources() {
        return values.values().stream().map(Ref::source).distinct().toList();
    }

    /** The value of a source for a preset whose id ends with suffix (".putc", ".cold"), or null. */
    public Ref forPreset(String source, String preset, String suffix) {
        for (Ref r : values.values()) {
            if (r.source().equals(source) && preset.equals(r.preset()) && r.id().endsWith(suffix)
                    && r.platform().equals("P-IB")) {
                return r;
            }
        }
        return null;
    }

    /**
     * The markdown table of one source's values, as a page embeds it (block {@code paper.SLUG}): every
     * value with its platform, so no page types a paper number by hand.
     */
    public String markdown(String source) {
        Table.Builder t = new Table.Builder(source).col("what", "platform", "paper (reference)")
                .align("| --- | --- | --- |");
        for (Ref r : bySource(source)) {
            t.row(r.what(), r.platform(), number(r.value()) + " " + (r.unit().equals("us") ? "µs" : r.unit()));
        }
        return t.build().markdown();
    }

    /** A value as the paper prints it, without a trailing ".0". */
    public static String number(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /** "Table 3" -> "table-3", "Section 4.3.3, Figure 8" -> "section-4-3-3-figure-8". */
    public static String slug(String source) {
        return source.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    }

    /** The value with that id, or null when the paper has none for it. */
    public Ref find(String id) {
        return values.get(id);
    }

    private static PaperReferences load() {
        try (InputStream in = PaperReferences.class.getResourceAsStream("paper-references.json")) {
            if (in == null) {
                throw new IllegalStateException("paper-references.json missing from the class path");
            }
            JsonNode root = JsonMapper.builder().build().readTree(in);
            Map<String, Ref> m = new LinkedHashMap<>();
            for (JsonNode v : root.get("values")) {
                Ref r = new Ref(v.get("id").asString(), v.get("value").asDouble(), v.get("unit").asString(),
                        v.get("platform").asString(), v.get("source").asString(), v.get("what").asString(),
                        v.hasNonNull("preset") ? v.get("preset").asString() : null);
                if (m.put(r.id(), r) != null) {
                    throw new IllegalStateException("paper-references.json: duplicate id " + r.id());
                }
            }
            return new PaperReferences(root.get("paper").asString(), root.get("about").asString(), m);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
