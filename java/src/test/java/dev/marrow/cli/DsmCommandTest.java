// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The dsm command's behaviour without a Hopper GPU: exit code and message. */
class DsmCommandTest {
    private record Result(int code, String out, String err) {
    }

    private static Result exec(Object cmd, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(cmd);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void noGpuGivesExit77AndAClearMessage() {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the no-GPU path is tested where there is none");
        Result r = exec(new DsmCommand(), "run", "--experiment", "all", "--format", "json");
        assertEquals(DsmCommand.EXIT_NO_GPU, r.code());
        assertEquals(Main.EXIT_UNAVAILABLE, r.code());
        assertTrue(r.err().contains("needs a Hopper-class GPU (sm_90+), found"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aPreHopperGpuIsRefusedTheSameWay() {
        // The opener stands in for a GPU whose marrow_dsm_device_info answered ENODEV.
        DsmCommand.Run run = new DsmCommand.Run();
        run.opener = dev -> {
            throw new BackendUnavailableException("needs a Hopper-class GPU (sm_90+), found NVIDIA A100 (sm_80)", null);
        };
        Result r = exec(run, "--experiment", "E4");
        assertEquals(77, r.code());
        assertTrue(r.err().contains("found NVIDIA A100 (sm_80)"), r.err());
    }

    @Test
    void unknownExperimentIsAUsageError() {
        Result r = exec(new DsmCommand(), "run", "--experiment", "E99");
        assertEquals(CommandLine.ExitCode.USAGE, r.code());
        assertTrue(r.err().contains("unknown experiment 'E99'"), r.err());
    }

    @Test
    void plotWithoutInputFileIsAUsageErrorNamingTheFile() {
        // through Main's command line: its exception mapper decides the exit code users see
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("dsm", "plot", "--input", "/nonexistent/dsm.jsonl");
        assertEquals(CommandLine.ExitCode.USAGE, code, err.toString());
        assertTrue(err.toString().contains("--input /nonexistent/dsm.jsonl is not a file"), err.toString());
        assertEquals("", out.toString());
    }
}
