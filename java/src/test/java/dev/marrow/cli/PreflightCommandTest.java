// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.preflight.PreflightFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** marrow preflight and doctor --deep as a user runs them: exit codes, fix lines, the error line. */
class PreflightCommandTest {
    @TempDir
    Path tmp;

    /** The CLI in-process, as every CLI test runs it (CliTest). */
    static CliTest.Run run(String... args) {
        return CliTest.run(args);
    }

    @Test
    void goodTreeExitsZeroWithWarningsOnly() {
        Path good = PreflightFixtures.tree("good", tmp);
        CliTest.Run r = run("preflight", "--root", good.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("warn  devx"), r.out());
        assertTrue(r.out().contains("ok    peer-mapping"), r.out());
        assertTrue(r.out().contains("10 ok, 2 warn, 0 fail"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void bareTreeFailsWithReasonsAndFixes() {
        Path bare = PreflightFixtures.tree("bare", tmp);
        CliTest.Run r = run("preflight", "--root", bare.toString());
        assertEquals(1, r.code());
        assertTrue(r.out().contains("fail  memlock"), r.out());
        assertTrue(r.out().contains("fix: ulimit -l unlimited"), r.out());
        assertTrue(r.err().startsWith("marrow: preflight: 8 check(s) failed: gpu, peer-mapping"), r.err());
    }

    @Test
    void jsonListsEveryCheck() {
        Path bare = PreflightFixtures.tree("bare", tmp);
        CliTest.Run r = run("preflight", "--root", bare.toString(), "--format", "json");
        assertEquals(1, r.code());
        assertTrue(r.out().startsWith("{\"preflight\":[{\"check\":\"gpu\",\"status\":\"fail\""), r.out());
        assertTrue(r.out().contains("\"check\":\"iommu-acs\""), r.out());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, run("preflight", "--root", tmp.resolve("missing").toString()).code());
        CliTest.Run r = run("preflight", "--format", "xml");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--format must be table or json"), r.err());
    }

    @Test
    void doctorDeepRunsPreflightOnThisMachine() {
        CliTest.Run r = run("doctor", "--deep");
        assertTrue(r.out().contains("marrow preflight (root /)"), r.out() + r.err());
        boolean failed = r.out().lines().anyMatch(l -> l.startsWith("  fail"));
        assertEquals(failed ? 1 : 0, r.code(), r.out() + r.err());
        assertFalse(run("doctor").out().contains("marrow preflight"));
    }
}
