// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.preflight.PreflightFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** marrow preflight and doctor --deep as a user runs them: exit codes, fix lines, the error line. */
class PreflightCommandTest {
    @TempDir
    Path tmp;

    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void goodTreeExitsZeroWithWarningsOnly() {
        Path good = PreflightFixtures.tree("good", tmp);
        Run r = run("preflight", "--root", good.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("warn  devx"), r.out());
        assertTrue(r.out().contains("ok    peer-mapping"), r.out());
        assertTrue(r.out().contains("10 ok, 2 warn, 0 fail"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void bareTreeFailsWithReasonsAndFixes() {
        Path bare = PreflightFixtures.tree("bare", tmp);
        Run r = run("preflight", "--root", bare.toString());
        assertEquals(1, r.code());
        assertTrue(r.out().contains("fail  memlock"), r.out());
        assertTrue(r.out().contains("fix: ulimit -l unlimited"), r.out());
        assertTrue(r.err().startsWith("marrow: preflight: 8 check(s) failed: gpu, peer-mapping"), r.err());
    }

    @Test
    void jsonListsEveryCheck() {
        Path bare = PreflightFixtures.tree("bare", tmp);
        Run r = run("preflight", "--root", bare.toString(), "--format", "json");
        assertEquals(1, r.code());
        assertTrue(r.out().startsWith("{\"preflight\":[{\"check\":\"gpu\",\"status\":\"fail\""), r.out());
        assertTrue(r.out().contains("\"check\":\"iommu-acs\""), r.out());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, run("preflight", "--root", tmp.resolve("missing").toString()).code());
        Run r = run("preflight", "--format", "xml");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--format must be table or json"), r.err());
    }

    @Test
    void doctorDeepRunsPreflightOnThisMachine() {
        Run r = run("doctor", "--deep");
        assertTrue(r.out().contains("marrow preflight (root /)"), r.out() + r.err());
        boolean failed = r.out().lines().anyMatch(l -> l.startsWith("  fail"));
        assertEquals(failed ? 1 : 0, r.code(), r.out() + r.err());
        assertFalse(run("doctor").out().contains("marrow preflight"));
    }
}
