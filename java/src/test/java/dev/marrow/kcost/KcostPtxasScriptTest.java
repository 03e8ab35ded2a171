// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** scripts/kcost-ptxas.sh: its ptxas-log parser (self-test) and its usage errors; no nvcc needed. */
class KcostPtxasScriptTest {
    static int run(String... args) throws Exception {
        Path root = Path.of("").toAbsolutePath();
        if (!Files.exists(root.resolve("scripts/kcost-ptxas.sh"))) {
            root = root.getParent();
        }
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", root.resolve("scripts/kcost-ptxas.sh").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kcost-ptxas.sh did not finish");
        return p.exitValue();
    }

    @Test
    void parserTurnsAPtxasLogIntoOneRowPerCallerBuild() throws Exception {
        assertEquals(0, run("--self-test"), "the canned log must parse to the expected rows");
    }

    @Test
    void badArgumentsAreUsageErrors() throws Exception {
        assertEquals(2, run("--arch", "hopper"));
        assertEquals(2, run("--arch"));
        assertEquals(2, run("--bogus"));
    }
}
