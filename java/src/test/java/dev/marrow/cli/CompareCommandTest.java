// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** marrow compare on JSON-lines and merged files: verdicts, the threshold, exit codes 0, 1 and 2. */
class CompareCommandTest {
    @TempDir
    Path tmp;

    /** The CLI in-process, as every CLI test runs it (CliTest). */
    static CliTest.Run run(String... args) {
        return CliTest.run(args);
    }

    static final String HEADER = "{\"record\":\"header\",\"schema\":\"marrow.result/1\",\"env\":{}}";
    static final String FOOTER = "{\"record\":\"footer\",\"status\":\"complete\",\"records\":2}";

    /** A softnic rate point as the command writes it (fields trimmed). */
    static String rate(int size, double mmsgs, boolean valid) {
        return "{\"record\":\"result\",\"experiment\":\"softnic.rate\",\"backend\":\"softnic\",\"hardware\":false,"
                + "\"size_bytes\":" + size + ",\"batch\":1,\"messages\":200000,\"rate_mmsg_s\":" + mmsgs
                + ",\"elapsed_ns\":" + (long) (200000 / mmsgs * 1000) + ",\"doorbells_rung\":200000,\"valid\":"
                + valid + "}";
    }

    static String latency(double p50) {
        return "{\"record\":\"result\",\"experiment\":\"softnic.latency\",\"backend\":\"softnic\",\"size_bytes\":8,"
                + "\"putc_p50_ns\":" + p50 + ",\"putc_p99_ns\":900,\"samples\":1000,\"valid\":true}";
    }

    Path file(String name, String... lines) throws IOException {
        return Files.writeString(tmp.resolve(name), String.join("\n", lines) + "\n");
    }

    @Test
    void identicalFilesAreTheSameAndExitZero() throws IOException {
        Path a = file("a.jsonl", HEADER, rate(8, 4.0, true), rate(64, 3.5, true), latency(800), FOOTER);
        CliTest.Run r = run("compare", a.toString(), a.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("3 point(s) matched, 0 only in A, 0 only in B; 0 better, 0 worse, 6 same"),
                r.out());
        assertEquals("", r.err());
    }

    @Test
    void aPlantedRegressionExitsOne() throws IOException {
        Path a = file("a.jsonl", HEADER, rate(8, 4.0, true), rate(64, 3.5, true), latency(800), FOOTER);
        Path b = file("b.jsonl", HEADER, rate(8, 4.0, true), rate(64, 2.8, true), latency(800), FOOTER);
        CliTest.Run r = run("compare", a.toString(), b.toString());
        assertEquals(1, r.code(), r.out());
        String row = r.out().lines().filter(l -> l.contains("size_bytes=64") && l.contains("rate_mmsg_s"))
                .findFirst().orElseThrow();
        assertTrue(row.contains("-20.0%") && row.endsWith("worse"), row);
        // the fixed work took longer: elapsed_ns is worse too, lower being better
        assertTrue(r.out().lines().anyMatch(l -> l.contains("size_bytes=64") && l.contains("elapsed_ns")
                && l.endsWith("worse")), r.out());
        assertTrue(r.err().startsWith("marrow: compare: 2 metric(s) worse by more than 5%: softnic.rate/softnic "
                + "(size_bytes=64 batch=1) rate_mmsg_s -20.0%"),
                r.err());
    }

    @Test
    void directionDecidesBetterAndWorse() throws IOException {
        Path a = file("a.jsonl", rate(8, 4.0, true), latency(800));
        Path b = file("b.jsonl", rate(8, 5.0, true), latency(700));
        CliTest.Run r = run("compare", a.toString(), b.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.contains("rate_mmsg_s") && l.contains("+25.0%")
                && l.endsWith("better")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.contains("putc_p50_ns") && l.contains("-12.5%")
                && l.endsWith("better")), r.out());
        CliTest.Run back = run("compare", b.toString(), a.toString());
        assertEquals(1, back.code());
        assertTrue(back.out().lines().anyMatch(l -> l.contains("putc_p50_ns") && l.endsWith("worse")), back.out());
    }

    @Test
    void thresholdDecidesWhatIsTheSame() throws IOException {
        Path a = file("a.jsonl", latency(800));
        Path b = file("b.jsonl", latency(824)); // +3%
        assertEquals(0, run("compare", a.toString(), b.toString()).code());
        CliTest.Run tight = run("compare", "--threshold", "2%", a.toString(), b.toString());
        assertEquals(1, tight.code());
        assertTrue(tight.err().contains("worse by more than 2%"), tight.err());
        assertEquals(0, run("compare", "--threshold", "3.5", a.toString(), b.toString()).code());
    }

    @Test
    void mergedRunsCompareTheirMediansNotTheSpread() throws IOException {
        Path single = file("single.jsonl", latency(800));
        Path merged = file("merged.jsonl", "{\"record\":\"result\",\"experiment\":\"softnic.latency\","
                + "\"backend\":\"softnic\",\"size_bytes\":8,\"putc_p50_ns\":790,\"putc_p50_ns_min\":700,"
                + "\"putc_p50_ns_max\":2000,\"putc_p99_ns\":905,\"putc_p99_ns_min\":880,\"putc_p99_ns_max\":990,"
                + "\"samples\":1000,\"valid\":true,\"runs\":3,\"repeat_statistic\":\"nearest-rank median\"}");
        CliTest.Run r = run("compare", single.toString(), merged.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("1 point(s) matched, 0 only in A, 0 only in B; 0 better, 0 worse, 2 same"),
                r.out());
        assertTrue(r.out().lines().noneMatch(l -> l.contains("_min ") || l.contains("_max ")), r.out());
    }

    @Test
    void aPointThatBecameInvalidIsARegression() throws IOException {
        Path a = file("a.jsonl", rate(8, 4.0, true));
        Path b = file("b.jsonl", rate(8, 4.0, false));
        CliTest.Run r = run("compare", a.toString(), b.toString());
        assertEquals(1, r.code());
        assertTrue(r.out().lines().anyMatch(l -> l.contains(" valid ") && l.endsWith("worse")), r.out());
    }

    @Test
    void pointsOnlyOneFileHasAreCounted() throws IOException {
        Path a = file("a.jsonl", rate(8, 4.0, true));
        Path b = file("b.jsonl", rate(8, 4.0, true), rate(64, 1.0, true), latency(900));
        CliTest.Run r = run("compare", a.toString(), b.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("1 point(s) matched, 0 only in A, 2 only in B"), r.out());
    }

    @Test
    void pointsMatchByTheirParametersNotOnlyTheirPlace() throws IOException {
        Path a = file("a.jsonl", rate(8, 4.0, true), rate(16, 3.9, true), rate(64, 3.5, true));
        Path b = file("b.jsonl", rate(8, 4.0, true), rate(64, 2.0, true));
        CliTest.Run r = run("compare", a.toString(), b.toString());
        assertEquals(1, r.code());
        assertTrue(r.out().contains("2 point(s) matched, 1 only in A, 0 only in B"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.contains("size_bytes=64") && l.contains("rate_mmsg_s")
                && l.contains("3.5") && l.endsWith("worse")), r.out());
    }

    @Test
    void repeatedPointsMatchInOrder() throws IOException {
        Path a = file("a.jsonl", latency(800), latency(1000));
        Path b = file("b.jsonl", latency(800), latency(1200));
        CliTest.Run r = run("compare", a.toString(), b.toString());
        assertEquals(1, r.code());
        assertTrue(r.out().lines().anyMatch(l -> l.contains("#2") && l.contains("putc_p50_ns") && l.contains("+20.0%")),
                r.out());
    }

    @Test
    void usageErrorsExitTwo() throws IOException {
        Path a = file("a.jsonl", rate(8, 4.0, true));
        Path other = file("o.jsonl", rate(64, 4.0, true));
        Path dsm = file("d.jsonl", "{\"experiment\":\"dsm.E2\",\"backend\":\"cuda\",\"alpha_ns\":5}");
        for (String[] args : new String[][] {
            {"compare", a.toString(), a.toString(), "--threshold", "x%"},
            {"compare", a.toString(), a.toString(), "--threshold", "-1"},
            {"compare", a.toString(), tmp.resolve("missing.jsonl").toString()},
            {"compare", a.toString()},
            {"compare", a.toString(), other.toString()},
            {"compare", a.toString(), dsm.toString()}}) {
            CliTest.Run r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.err().startsWith("marrow: ") && r.err().contains("see 'marrow compare --help'"), r.err());
        }
        assertTrue(run("compare", a.toString(), other.toString()).err().contains("no point of"));
    }
}
