// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Opens a rendered report in headless Chromium: every figure loads, the page
 * logs nothing to the console and raises no error, and its screenshot is not
 * blank. Skips (with the reason) where no Chromium is installed;
 * scripts/setup-report-test.sh installs it for scripts/test.
 */
class ReportBrowserTest {
    static Path chromium;

    @BeforeAll
    static void findChromium() {
        List<String> candidates = new ArrayList<>();
        String env = System.getenv("MARROW_CHROMIUM");
        if (env != null && !env.isBlank()) {
            candidates.add(env);
        }
        candidates.addAll(List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"));
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                chromium = Path.of(c);
                return;
            }
        }
    }

    record Run(String stdout, String stderr) {
    }

    static Run chromium(Path profile, Path page, String... mode) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
                "--hide-scrollbars"));
        cmd.addAll(List.of(mode));
        cmd.add(page.toUri().toString());
        File out = profile.resolveSibling(profile.getFileName() + ".out").toFile();
        File err = profile.resolveSibling(profile.getFileName() + ".err").toFile();
        Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 60 s: " + cmd);
        }
        return new Run(Files.readString(out.toPath(), StandardCharsets.UTF_8),
                Files.readString(err.toPath(), StandardCharsets.UTF_8));
    }

    static String attr(String dom, String name) {
        Matcher m = Pattern.compile("<div id=\"report-check\"[^>]*\\s" + name + "=\"([^\"]*)\"").matcher(dom);
        return m.find() ? m.group(1) : null;
    }

    /** Console messages Chromium logs for the page ("CONSOLE" lines); the report itself logs none. */
    static List<String> consoleLines(String stderr) {
        return stderr.lines().filter(l -> l.contains(":CONSOLE")).toList();
    }

    @Test
    void reportRendersInHeadlessChromium(@TempDir Path tmp) throws Exception {
        assumeTrue(chromium != null, "Chromium is not installed (/usr/bin/chromium, or MARROW_CHROMIUM): "
                + "run scripts/setup-report-test.sh (apt-get install chromium) to run this check");
        Path rs = ReportTest.RESULTS;
        Path index = Report.write(List.of(rs.resolve("h200-softnic-gda-latency/cuda-rtt.jsonl"),
                rs.resolve("h200-softnic-proxy/latency_cuda.json"), rs.resolve("h200-softnic-proxy/rate_engine4.json")),
                tmp.resolve("report"), "browser test");
        int imgTags = count(Files.readString(index), "<img ");
        assertTrue(imgTags >= 3, "the test report should have figures, has " + imgTags);

        Run dom = chromium(tmp.resolve("p1"), index, "--dump-dom");
        assertEquals("yes", attr(dom.stdout(), "data-done"), "the page's load check never ran:\n" + tail(dom));
        assertEquals(String.valueOf(imgTags), attr(dom.stdout(), "data-images"));
        assertEquals("", attr(dom.stdout(), "data-broken"), "figures that did not load");
        assertEquals("", attr(dom.stdout(), "data-errors"), "script errors on the page");
        assertEquals(List.of(), consoleLines(dom.stderr()), "console messages");

        // the same check must fail when a figure is missing
        Path broken = index.resolveSibling("broken.html");
        Files.writeString(broken, Files.readString(index).replaceFirst("<img src=\"[^\"]+\"", "<img src=\"missing.png\""));
        Run bad = chromium(tmp.resolve("p2"), broken, "--dump-dom");
        assertEquals("missing.png", attr(bad.stdout(), "data-broken"));

        Path shot = tmp.resolve("shot.png");
        chromium(tmp.resolve("p3"), index, "--screenshot=" + shot, "--window-size=1280,1600");
        BufferedImage img = ImageIO.read(shot.toFile());
        assertTrue(img != null && img.getWidth() >= 1000, "no screenshot");
        Set<Integer> colours = new HashSet<>();
        long nonWhite = 0;
        for (int y = 0; y < img.getHeight(); y += 2) {
            for (int x = 0; x < img.getWidth(); x += 2) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                if (rgb != 0xffffff) {
                    nonWhite++;
                }
            }
        }
        long sampled = (long) ((img.getHeight() + 1) / 2) * ((img.getWidth() + 1) / 2);
        assertTrue(colours.size() > 20, "screenshot has only " + colours.size() + " colours: blank");
        assertTrue(nonWhite > sampled / 50, "screenshot is nearly all white: " + nonWhite + " of " + sampled);
        assertFalse(consoleLines(dom.stderr()).stream().anyMatch(l -> l.contains("report-check")));
    }

    /**
     * The report CI builds: from every committed archive, curated; no section empty, each with a value of
     * "GPU-Initiated Communication: Dissecting Down to the Bone".
     */
    @Test
    void curatedReportRendersWithNoEmptySection(@TempDir Path tmp) throws Exception {
        assumeTrue(chromium != null, "Chromium is not installed: run scripts/setup-report-test.sh");
        Path index = Report.write(ReportTest.archives(), tmp.resolve("report"), "ci");
        Run dom = chromium(tmp.resolve("c1"), index, "--dump-dom");
        assertEquals("yes", attr(dom.stdout(), "data-done"), tail(dom));
        assertEquals(String.valueOf(ReportSpec.get().sections().size()), attr(dom.stdout(), "data-sections"));
        assertEquals("", attr(dom.stdout(), "data-empty"), "sections with no table cell");
        assertEquals("", attr(dom.stdout(), "data-noref"), "sections with no paper value");
        assertEquals("", attr(dom.stdout(), "data-broken"));
        // the same check must name a section whose paper cells are gone
        Path noref = index.resolveSibling("noref.html");
        Files.writeString(noref, Files.readString(index).replace("<td class=\"ref\">", "<td>"));
        Run bad = chromium(tmp.resolve("c2"), noref, "--dump-dom");
        assertTrue(attr(bad.stdout(), "data-noref").startsWith("table-3"), attr(bad.stdout(), "data-noref"));
    }

    static int count(String s, String needle) {
        int n = 0;
        for (int i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    static String tail(Run r) {
        String e = r.stderr();
        return e.length() > 2000 ? e.substring(e.length() - 2000) : e;
    }
}
