// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import dev.marrow.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report and the results-doc tables, from the published raw archives docs/results/*.tar.gz. */
class ReportTest {
    /** The committed pages and archives. */
    static final Path PAGES = Path.of("..", "docs", "results");
    /** Every page's raw archive expanded once: the tree of raw files the tables were generated from. */
    static final Path RESULTS = expandArchives();

    static List<Path> archives() {
        try (var s = Files.newDirectoryStream(PAGES, "*.tar.gz")) {
            List<Path> l = new ArrayList<>();
            s.forEach(l::add);
            l.sort(null);
            return l;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path expandArchives() {
        try {
            Path dir = Files.createTempDirectory("marrow-report-test-");
            for (Path a : archives()) {
                RawArchive.expand(a, dir);
            }
            return dir;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<Path> files(String dir, String glob) throws Exception {
        List<Path> l = new ArrayList<>();
        if (Files.isDirectory(RESULTS.resolve(dir))) {
            try (var s = Files.newDirectoryStream(RESULTS.resolve(dir), glob)) {
                s.forEach(l::add);
            }
        }
        l.sort(null);
        assertFalse(l.isEmpty(), "no " + glob + " in " + dir);
        return l;
    }

    /** The DSM doc's raw files: the full run, the width call's defaults, run 2. */
    static List<Path> dsmInputs() throws Exception {
        List<Path> l = new ArrayList<>(List.of(RESULTS.resolve("h200-dsm/h200-dsm.jsonl"),
                RESULTS.resolve("h200-dsm/width-default.jsonl")));
        l.addAll(files("h200-dsm/run2", "*.jsonl"));
        l.addAll(files("h200-dsm/touch-ab", "*.jsonl"));
        return l;
    }

    @Test
    void aChangedRun2NumberIsFound(@TempDir Path tmp) throws Exception {
        Path doc = tmp.resolve("tampered-run2.txt");
        String committed = Files.readString(Path.of("..", "docs/results/h200-dsm.md"));
        String tampered = committed.replace("| generic u1 rendezvous w4 | probe | 21.49 |", "| generic u1 rendezvous w4 | probe | 18.87 |");
        assertFalse(tampered.equals(committed), "test fixture: the E14 row to tamper with is gone");
        Files.writeString(doc, tampered);
        assertFalse(DocTables.rewrite(doc, dsmInputs(), false));
        assertEquals(committed, Files.readString(doc));
    }

    @Test
    void committedDocTablesEqualWhatTheRawFilesGive() throws Exception {
        List<Path> gda = new ArrayList<>(files("h200-softnic-gda-latency", "*.jsonl"));
        gda.addAll(files("h200-softnic-gda-latency/run1-dbrec-triggered", "*.jsonl"));
        gda.addAll(files("h200-softnic-gda-latency/medians", "*.jsonl"));
        List<Path> proxy = new ArrayList<>(files("h200-softnic-proxy", "*.json"));
        proxy.addAll(files("h200-softnic-proxy/run1-dbrec-triggered", "*.json"));
        proxy.addAll(files("h200-softnic-proxy/medians", "*.jsonl"));
        assertTrue(DocTables.rewrite(Path.of("..", "docs/results/h200-softnic-gda-latency.md"), gda, true),
                "gda latency doc: tables differ from its raw files");
        assertTrue(DocTables.rewrite(Path.of("..", "docs/results/h200-softnic-proxy.md"), proxy, true),
                "proxy doc: tables differ from its raw files");
        assertTrue(DocTables.rewrite(Path.of("..", "docs/results/h200-dsm.md"), dsmInputs(), true),
                "dsm doc: tables differ from its raw files");
    }

    @Test
    void aChangedNumberInADocIsFoundAndRegenerated(@TempDir Path tmp) throws Exception {
        Path doc = tmp.resolve("tampered-doc.txt");
        String committed = Files.readString(Path.of("..", "docs/results/h200-dsm.md"));
        String tampered = committed.replace("| E3 store 1->0 | 21.29 |", "| E3 store 1->0 | 99.99 |");
        assertFalse(tampered.equals(committed), "test fixture: the row to tamper with is gone");
        Files.writeString(doc, tampered);
        List<Path> in = dsmInputs();
        assertFalse(DocTables.rewrite(doc, in, true));
        assertEquals(tampered, Files.readString(doc), "--check must not write");
        assertFalse(DocTables.rewrite(doc, in, false));
        assertEquals(committed, Files.readString(doc));
    }

    @Test
    void unknownTableNameIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DocTables.render(
                "<!-- marrow report: nope -->\nx\n<!-- /marrow report -->\n", java.util.Map.of("a", "b"), "test doc"));
        assertTrue(e.getMessage().contains("nope"), e.getMessage());
    }

    @Test
    void reportHasEveryExperimentFigureAndLabelledReferences(@TempDir Path tmp) throws Exception {
        List<Path> in = List.of(RESULTS.resolve("h200-softnic-gda-latency/cuda-ordering.jsonl"),
                RESULTS.resolve("h200-softnic-gda-latency/cuda-size.jsonl"),
                RESULTS.resolve("h200-softnic-proxy/latency_cuda_warm.json"),
                RESULTS.resolve("h200-softnic-proxy/rate_engine4.json"),
                RESULTS.resolve("h200-dsm/width-default.jsonl"));
        Path index = Report.write(in, tmp.resolve("out"), "t");
        String html = Files.readString(index);
        Matcher m = Pattern.compile("<img src=\"([^\"]+)\"").matcher(html);
        Set<String> imgs = new HashSet<>();
        while (m.find()) {
            imgs.add(m.group(1));
            Path png = tmp.resolve("out").resolve(m.group(1));
            assertTrue(Files.size(png) > 1000, png + " missing or empty");
            assertTrue(javax.imageio.ImageIO.read(png.toFile()).getWidth() >= 800);
        }
        for (String id : List.of("h200-softnic-gda-latency-cuda-ordering", "h200-softnic-gda-latency-cuda-size",
                "h200-softnic-proxy-latency-cuda-warm", "h200-softnic-proxy-rate-engine4")) {
            assertTrue(imgs.contains(id + ".png"), "no figure for " + id);
            Pattern section = Pattern.compile("<section id=\"" + id + "\" class=\"emulated\">.*?<table>.*?</section>",
                    Pattern.DOTALL);
            assertTrue(section.matcher(html).find(), id + ": no emulated-marked section with a table");
        }
        assertTrue(html.matches("(?s).*<section id=\"h200-dsm-width-default-dsm-[^\"]+\" class=\"hardware\">.*"));
        // the paper's Table 4 gpu-fence issue (0.70) sits in a reference cell, never in one of ours
        assertTrue(html.contains("<td>gpu-fence</td><td>inline</td><td>8</td><td>0.51</td>"), "our issue p50 is 0.51 µs");
        assertTrue(html.contains("<td class=\"ref\">0.70</td><td class=\"ref\">4.03</td><td class=\"ref\">paper P-IB, "
                + "Table 4</td>"), "the paper's gpu-fence row, as references");
        assertTrue(html.contains("<th class=\"ref\">paper issue <span class=\"reftag\">reference</span></th>"));
        assertTrue(html.contains("<details id=\"environment\">") && html.contains("NVIDIA H200"),
                "environment (once per build) missing");
        assertTrue(html.contains("Method.</strong> `marrow gda latency`".replace("`marrow gda latency`",
                "<code>marrow gda latency</code>")), "method text missing");
    }

    @Test
    void everyPaperReferenceCitesATableFigureOrSection() {
        PaperReferences p = PaperReferences.get();
        assertEquals("GPU-Initiated Communication: Dissecting Down to the Bone", p.paper());
        assertTrue(p.all().size() >= 40);
        for (PaperReferences.Ref r : p.all()) {
            assertTrue(r.source().matches("(Table|Figure|Section) \\d.*|DSM B\\d+"), r.id() + ": source " + r.source());
            assertTrue(r.value() > 0, r.id());
        }
        assertEquals(2.62, p.ref("t4.pib.fence-sys.issue").value());
        assertThrows(IllegalStateException.class, () -> p.ref("no.such.value"));
    }

    @Test
    void badInputFailsWithFileAndLine(@TempDir Path tmp) throws Exception {
        Path bad = tmp.resolve("bad.jsonl");
        Files.writeString(bad, "{\"record\":\"header\",\"env\":{}}\nnot json\n");
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        int rc = cl.execute("report", "--input", bad.toString(), "--output", tmp.resolve("o").toString());
        assertEquals(CommandLine.ExitCode.USAGE, rc);
        assertTrue(err.toString().contains("bad.jsonl:2"), err.toString());
        assertFalse(Files.exists(tmp.resolve("o/index.html")), "no report from bad input");
        try (Stream<Path> s = Files.list(tmp)) {
            assertEquals(1, s.count(), "bad input left files behind");
        }
    }
}
