// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * scripts/repeat-runs.sh end to end, with a stand-in measuring command that
 * writes a different p50 in each process run, and this JVM's classpath as
 * the CLI that merges.
 */
class RepeatRunsScriptTest {
    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        return Files.exists(p.resolve("scripts/repeat-runs.sh")) ? p : p.getParent();
    }

    static Path fake(Path dir) throws IOException {
        // each run bumps a counter and writes a header and one result; the 3rd run may fail on demand
        Path f = dir.resolve("fake.sh");
        Files.writeString(f, """
                #!/usr/bin/env bash
                out=""; while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
                n=$(( $(cat "$COUNTER" 2>/dev/null || echo 0) + 1 )); echo $n > "$COUNTER"
                [ "$n" = "$FAIL_AT" ] && exit 7
                valid=true; [ "$n" = "$INVALID_AT" ] && valid=false
                printf '{"record":"header","schema":"marrow.result/1","env":{}}\\n' > "$out"
                printf '{"record":"result","experiment":"fake.latency","backend":"cpu","hardware":false,"iters":10,"putc_p50_ns":%d,"valid":%s}\\n' $(( n * 100 )) $valid >> "$out"
                [ "$valid" = false ] && exit 1
                exit 0
                """);
        return f;
    }

    static int run(Path dir, String failAt, String... args) throws Exception {
        return runMarkingInvalid(dir, failAt, "0", args);
    }

    /** As run, and the run numbered invalidAt writes its row with valid=false and exits 1. */
    static int runMarkingInvalid(Path dir, String failAt, String invalidAt, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", root().resolve("scripts/repeat-runs.sh").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("log.txt").toFile());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        pb.environment().put("MARROW", java + " -cp " + System.getProperty("java.class.path") + " dev.marrow.cli.Main");
        pb.environment().put("COUNTER", dir.resolve("counter").toString());
        pb.environment().put("FAIL_AT", failAt);
        pb.environment().put("INVALID_AT", invalidAt);
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "repeat-runs.sh did not finish");
        return p.exitValue();
    }

    @Test
    void threeProcessRunsMergeIntoTheirMedianAndSpread(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("merged.jsonl");
        int rc = run(dir, "0", "-n", "3", "-o", out.toString(), "-k", dir.resolve("runs").toString(), "--",
                "bash", fake(dir).toString());
        assertEquals(0, rc, Files.readString(dir.resolve("log.txt")));
        List<Map<String, Object>> recs = RunMerge.results(Files.readString(out));
        assertEquals(1, recs.size());
        assertEquals(200, ((Number) recs.getFirst().get("putc_p50_ns")).intValue());
        assertEquals(100, ((Number) recs.getFirst().get("putc_p50_ns_min")).intValue());
        assertEquals(300, ((Number) recs.getFirst().get("putc_p50_ns_max")).intValue());
        assertEquals(3, ((Number) recs.getFirst().get("runs")).intValue());
        assertTrue(Files.exists(dir.resolve("runs/run-3.jsonl")), "-k keeps the per-run files");
    }

    @Test
    void aFailedRunStopsTheMergeWithItsExitCode(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("merged.jsonl");
        int rc = run(dir, "2", "-n", "3", "-o", out.toString(), "--", "bash", fake(dir).toString());
        assertEquals(7, rc);
        assertFalse(Files.exists(out), "no merge of an incomplete set");
    }

    @Test
    void aRunWithFailedRowsIsMergedAsInvalidAndTheScriptExitsOne(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("merged.jsonl");
        int rc = runMarkingInvalid(dir, "0", "2", "-n", "3", "-o", out.toString(), "--", "bash", fake(dir).toString());
        assertEquals(1, rc, Files.readString(dir.resolve("log.txt")));
        List<Map<String, Object>> recs = RunMerge.results(Files.readString(out));
        assertEquals(1, recs.size());
        assertEquals(Boolean.FALSE, recs.getFirst().get("valid"), "one run's FAILED row makes the point invalid");
        assertEquals(3, ((Number) recs.getFirst().get("runs")).intValue());
    }

    @Test
    void badArgumentsAreUsageErrors(@TempDir Path dir) throws Exception {
        assertEquals(2, run(dir, "0", "-n", "x", "-o", "m.jsonl", "--", "true"));
        assertEquals(2, run(dir, "0", "-n", "3", "--", "true"), "no -o");
        assertEquals(2, run(dir, "0", "-n", "3", "-o", "m.jsonl"), "no command");
        Files.writeString(dir.resolve("exists.jsonl"), "x");
        assertEquals(2, run(dir, "0", "-o", "exists.jsonl", "--", "true"), "never overwrites");
    }
}
