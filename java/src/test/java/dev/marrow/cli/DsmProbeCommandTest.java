// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The probes E11-E16 through the CLI without a GPU: exit 77 and the reason, nothing on stdout. */
class DsmProbeCommandTest {
    @ParameterizedTest
    @ValueSource(strings = {"E11", "E12", "E13", "E14", "E15", "E16", "probes", "address-offset,burst"})
    void withoutAGpuEveryProbeExits77WithTheReason(String experiment, @org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the no-GPU path is tested where there is none");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new DsmCommand());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        // a writable --output (a bad one is a usage error, checked first): nothing may be written to it
        java.nio.file.Path o = tmp.resolve("x.jsonl");
        int code = cl.execute("run", "--experiment", experiment, "--format", "json", "-o", o.toString());
        assertEquals(77, code, err.toString());
        assertTrue(!java.nio.file.Files.exists(o), "no file for a run that could not start");
        assertTrue(err.toString().contains("needs a Hopper-class GPU (sm_90+), found"), err.toString());
        assertEquals("", out.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"INFLIGHT_BYTES"})
    void theBytesLoadKernelIsAnOption(String kernel) {
        DsmCommand.Run run = new DsmCommand.Run();
        new CommandLine(run).parseArgs("--experiment", "E2", "--load-kernel", kernel, "--load-width", "4");
        assertEquals(4, run.config().loadWidth());
        assertEquals(kernel, run.config().loadKernel().name());
    }
}
