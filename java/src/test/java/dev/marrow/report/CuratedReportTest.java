// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report built from the committed archives is curated: one section per result of "GPU-Initiated
 * Communication: Dissecting Down to the Bone" (report-sections.json), each with the paper's values and
 * at least one table of ours, history behind a link, the environment once per build, no per-file gallery.
 */
class CuratedReportTest {
    @Test
    void everySectionOfTheSpecHasPaperValuesAndOurs(@TempDir Path tmp) throws Exception {
        Path index = Report.write(ReportTest.archives(), tmp.resolve("r"), "t");
        String html = Files.readString(index);
        List<ReportSpec.Entry> spec = ReportSpec.get().sections();
        assertTrue(spec.size() >= 13);
        for (ReportSpec.Entry e : spec) {
            Matcher m = Pattern.compile("<section data-paper=\"yes\" id=\"" + Pattern.quote(e.id())
                    + "\"[^>]*>(.*?)</section>", Pattern.DOTALL).matcher(html);
            assertTrue(m.find(), e.id() + ": no section");
            String body = m.group(1);
            assertTrue(body.contains("<td class=\"ref\">"), e.id() + ": no paper value");
            int ours = body.split("<h3>Ours")[1].split("<table>").length - 1;
            assertTrue(ours >= 1, e.id() + ": no table of ours");
            assertTrue(body.contains("href=\"docs/results/"), e.id() + ": no history link");
        }
        assertEquals(spec.size(), count(html, "<section "), "a section beyond the spec: the report is a gallery again");
        assertEquals(1, count(html, "id=\"environment\""), "the environment is shown once");
        for (ReportSpec.Entry e : spec) { // one chart where the paper has a figure, none elsewhere
            Matcher m = Pattern.compile("<section data-paper=\"yes\" id=\"" + Pattern.quote(e.id())
                    + "\"[^>]*>(.*?)</section>", Pattern.DOTALL).matcher(html);
            assertTrue(m.find());
            assertEquals(e.chart() == null ? 0 : 1, count(m.group(1), "<img "), e.id() + ": charts");
            if (e.chart() != null) {
                Path png = tmp.resolve("r").resolve("charts/" + e.id() + ".png");
                assertTrue(Files.size(png) > 1000, png + ": no chart drawn");
                assertTrue(e.chart().check().isEmpty(), e.id() + ": " + e.chart().check());
            }
        }
        assertTrue(ReportSpec.get().sections().stream().filter(e -> e.chart() != null).count() >= 7,
                "Fig. 3, 4, 6, 8, 9, 10 and the DSM curves each have a chart");
    }

    @Test
    void aSectionWithoutOurTablesIsLeftOutAndNamed() {
        CuratedReport.Body b = CuratedReport.body(java.util.Map.of("kcost.dormant", "| a |\n| --- |\n| 1 |\n"), List.of());
        assertEquals(List.of("fig-9"), b.shown());
        assertTrue(b.missing().contains("table-3"));
        assertTrue(b.html().contains("left out"));
    }

    @Test
    void everySpecTableAndSourceExists() throws Exception {
        var tables = DocTables.all(ReportTest.archives().stream().flatMap(a -> {
            try {
                return RawArchive.expand(a, Files.createTempDirectory("spec-")).stream();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).toList());
        for (ReportSpec.Entry e : ReportSpec.get().sections()) {
            for (String t : e.tables()) {
                assertTrue(tables.containsKey(t), e.id() + ": no generated table " + t);
            }
            for (String s : e.paper()) {
                assertFalse(PaperReferences.get().bySource(s).isEmpty(), e.id() + ": no paper source " + s);
            }
        }
    }

    static int count(String s, String needle) {
        return s.split(Pattern.quote(needle), -1).length - 1;
    }
}
