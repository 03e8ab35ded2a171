// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The error contract of docs/design/cli-errors.md, through Main in-process:
 * usage errors exit 2 with one line and a pointer to --help, failures exit 1
 * with the cause, nothing prints a stack trace, no run ends with an empty
 * table and exit 0; limits that a run could not meet in bounded time are
 * refused up front; the CPU budget is in the records.
 */
class CliErrorContractTest {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** Runs args (bounded: a refusal must come before anything long runs) and checks the common rules. */
    static CliTest.Run run(int expected, String... args) {
        CliTest.Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliTest.run(args));
        String what = String.join(" ", args) + "\nstderr: " + r.err();
        assertEquals(expected, r.code(), what);
        assertFalse(r.err().contains("Exception") || r.err().contains("at dev.marrow") || r.err().contains("at java."),
                "no stack trace or exception name: " + what);
        assertFalse(r.err().contains("Usage:") || r.out().contains("Usage:"), "no help after an error: " + what);
        return r;
    }

    /** A usage error: exit 2, the error line (containing each of expected), and the --help pointer. */
    static CliTest.Run assertUsage(String[] args, String... expected) {
        CliTest.Run r = run(ExitCodes.USAGE, args);
        String[] lines = r.err().strip().split("\n");
        String error = lines[lines.length - 2];
        for (String e : expected) {
            assertTrue(error.contains(e), "'" + e + "' in: " + r.err());
        }
        assertTrue(error.startsWith("marrow: "), r.err());
        assertTrue(lines[lines.length - 1].matches("see 'marrow( [a-z-]+)* --help'"), r.err());
        assertTrue(r.out().isEmpty(), "nothing on stdout: " + r.out());
        return r;
    }

    static String[] a(String... args) {
        return args;
    }

    @Test
    void anUnknownCommandIsAUsageErrorEvenWithHelp() {
        assertUsage(a("nosuch", "--help"), "unknown command 'nosuch'");
        assertUsage(a("figures", "--help"), "unknown command 'figures'");
        assertUsage(a("softnic", "nosuch", "--help"), "unknown command 'nosuch'");
    }

    /** CliFuzzTest's find: a native refusal of --log-slots in goodput's buffer sizing exited 1. */
    @Test
    void proxyLogSlotsOutOfRangeIsAUsageErrorInEveryProxyCommand() {
        for (String cmd : new String[] {"latency", "rate", "goodput"}) {
            assertUsage(a("proxy", cmd, "--log-slots", "-1", "--quiet"), "log-slots -1 must be 1..20");
            assertUsage(a("proxy", cmd, "--log-slots", "21", "--quiet"), "log-slots 21 must be 1..20");
        }
    }

    @Test
    void aUsageErrorIsOneLineAndAPointerNotTheHelp() {
        CliTest.Run r = assertUsage(a("gda", "rate", "--target", "nope"), "--target");
        assertEquals(2, r.err().strip().split("\n").length, r.err());
        assertUsage(a("softnic", "rate", "--batchx", "3"), "unknown option '--batchx'", "--batch");
        assertUsage(a("gda"), "needs a command", "latency");
        assertUsage(a("softnic", "rate", "--size", "abc"), "--size");
    }

    @Test
    void nonFiniteNumbersAreRefused() {
        assertUsage(a("softnic", "latency", "--iters", "10", "--max-seconds", "1e999999"), "--max-seconds", "finite");
        assertUsage(a("softnic", "latency", "--iters", "10", "--max-seconds", "NaN"), "--max-seconds", "finite");
        assertUsage(a("proxy", "latency", "--precondition-seconds", "-Infinity"), "--precondition-seconds", "finite");
    }

    /** A command that dies of an Error (picocli lets those through). */
    @CommandLine.Command(name = "boom")
    static final class Boom implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new OutOfMemoryError("Unable to allocate 68719497200 bytes");
        }
    }

    @Test
    void anErrorIsReportedInOneLineWithExit1() {
        CommandLine cl = CliErrors.install(new CommandLine(new Boom()));
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        int code = cl.execute();
        assertEquals(ExitCodes.FAILED, code, err.toString());
        assertEquals(1, err.toString().strip().split("\n").length, err.toString());
        assertTrue(err.toString().startsWith("marrow: out of memory"), err.toString());
        assertFalse(err.toString().contains("at dev.marrow"), err.toString());
    }

    @Test
    void proxyRateRefusesLayoutsThatRunNothingOrCannotBeAllocated() {
        assertUsage(a("proxy", "rate", "--size", "1048576", "--messages", "1000", "--warmup", "0"), "--size 1048576");
        assertUsage(a("proxy", "rate", "--workers", "64", "--messages", "1000", "--warmup", "0"), "--workers 64",
                "--rings");
        assertUsage(a("proxy", "rate", "--rings", "0", "--messages", "1000", "--warmup", "0"), "--rings 0", "1..");
        assertUsage(a("proxy", "rate", "--workers", "4", "--rings", "2", "--messages", "1000", "--warmup", "0"),
                "--workers 4", "--rings");
    }

    @Test
    void aRunWithEveryPointCutExits1NamingTheBound() {
        // 20 M messages take seconds; 20 ms of --max-seconds cut the only run of the only point
        CliTest.Run r = run(ExitCodes.FAILED, "softnic", "rate", "--messages", "20000000", "--warmup", "0",
                "--repeats", "1", "--poll", "idle", "--max-seconds", "0.02", "--format", "json");
        assertTrue(r.err().contains("marrow: no record: --max-seconds ended the run"), r.err());
        assertFalse(r.out().contains("\"record\":\"result\""), r.out());
    }

    /**
     * 16 posters for 50,000 messages each under 50 ms: on a small or busy machine a wait, capped by
     * the time left, runs out (before: "was a doorbell lost?", exit 1); where the posters never stall
     * the point completes past the bound (truncated, exit 0). Either way no doorbell is blamed.
     */
    @Test
    @org.junit.jupiter.api.Disabled("open bug: on a 2-core CI run this point did not end within 120 s with 200,000 "
            + "or 50,000 messages per poster (--max-seconds caps waits, not a run; see the faults issue)")
    void aGdaRatePointCutByTheBoundSaysSoNotADoorbell() {
        CliTest.Run r = assertTimeoutPreemptively(Duration.ofSeconds(120), () -> CliTest.run("gda", "rate",
                "--threads", "16", "--messages", "50000", "--warmup", "0", "--max-seconds", "0.05", "--quiet",
                "--format", "json"));
        assertFalse(r.err().contains("doorbell lost") || r.err().contains("Exception"), r.err());
        if (r.code() == ExitCodes.FAILED) {
            assertTrue(r.err().contains("marrow: --max-seconds cut the run at point 1 of 1"), r.err());
            assertTrue(r.err().contains("marrow: no record: --max-seconds ended the run"), r.err());
        } else {
            assertEquals(ExitCodes.OK, r.code(), r.err());
            assertTrue(onlyRecord(r.out()).get("truncated").asBoolean(), r.out());
        }
    }

    @Test
    void logSqIsBlamedForItsOwnRange() {
        CliTest.Run r = assertUsage(a("softnic", "rate", "--log-sq", "31"), "--log-sq", "1..15");
        assertFalse(r.err().contains("--batch"), r.err());
        r = assertUsage(a("proxy", "rate", "--log-sq", "31", "--messages", "100", "--warmup", "0"), "--log-sq", "1..15");
        assertFalse(r.err().contains("log_cqe_cnt") || r.err().contains("warning"), r.err());
        r = assertUsage(a("softnic", "rate", "--max-seconds", "-1"), "--max-seconds must be > 0");
        assertFalse(r.err().contains("warning"), "refused before the CPU check: " + r.err());
    }

    @Test
    void aCpuOutsideTheAffinitySetIsRefusedBeforeTheRun() {
        String cpu = String.valueOf(Runtime.getRuntime().availableProcessors() + 97);
        assertUsage(a("softnic", "latency", "--engine-cpu", cpu, "--iters", "10", "--warmup", "0"), "--engine-cpu",
                "CPU " + cpu);
        assertUsage(a("softnic", "rate", "--producers", "2", "--engine-cpus", cpu, "--messages", "100", "--warmup",
                "0", "--repeats", "1"), "--engine-cpus", "CPU " + cpu);
        assertUsage(a("gda", "rate", "--engine-cpus", cpu, "--messages", "100"), "--engine-cpus", "CPU " + cpu);
    }

    @Test
    void unboundedWorkIsRefusedUpFrontNamingTheFlagAndRange() {
        assertUsage(a("gda", "rate", "--target", "cpu", "--blocks", "4", "--threads", "1024"), "--threads 1024",
                "CPU poster threads", "1..");
        assertUsage(a("softnic", "rate", "--size", "1048576"), "--size 1048576", "--messages", "1..");
        assertUsage(a("gda", "latency", "--payload", "pointer", "--size", "99999999"), "--size 99999999", "1..");
        assertUsage(a("proxy", "rate", "--size", "1048576", "--messages", "1000000"), "--size 1048576",
                "--messages + --warmup", "1..");
    }

    @Test
    void everyBoundedCommandStatesItsDefaultBoundInItsHelp() {
        for (String[] cmd : new String[][] {{"softnic", "rate"}, {"softnic", "latency"}, {"proxy", "rate"},
                {"proxy", "latency"}, {"gda", "rate"}, {"gda", "latency"}, {"gda", "goodput"}, {"gda", "loaded"},
                {"proxy", "goodput"}, {"proxy", "loaded"}}) {
            CliTest.Run r = CliTest.run(cmd[0], cmd[1], "--help");
            assertEquals(0, r.code());
            assertTrue(r.out().replaceAll("\\s+", " ").contains("without --max-seconds no new point or repeat starts"
                    + " after " + RunBounds.DEFAULT_SECONDS_PER_POINT + " s"), String.join(" ", cmd) + ": " + r.out());
        }
    }

    static JsonNode onlyRecord(String out) {
        JsonNode rec = null;
        for (String line : out.strip().split("\n")) {
            JsonNode n = JSON.readTree(line);
            if ("result".equals(n.get("record").asString())) {
                assertTrue(rec == null, out);
                rec = n;
            }
        }
        assertTrue(rec != null, out);
        return rec;
    }

    @Test
    void softnicRecordsCarryTheCpuBudget() {
        CliTest.Run r = run(ExitCodes.OK, "softnic", "latency", "--iters", "200", "--warmup", "0", "--poll", "idle",
                "--format", "json");
        JsonNode rec = onlyRecord(r.out());
        assertEquals(2, rec.get("spinning_threads").asInt(), rec.toString());
        assertEquals(Runtime.getRuntime().availableProcessors(), rec.get("cpus_available").asInt(), rec.toString());
        assertTrue(rec.has("loadavg_1m") && rec.has("cpu_contended"), rec.toString());
        assertEquals(2 > Runtime.getRuntime().availableProcessors(), rec.get("cpu_oversubscribed").asBoolean());
    }

    @Test
    void oversubscribedSoftnicRateWarnsAndSaysSoInTheRecord() {
        int cpus = Runtime.getRuntime().availableProcessors();
        assumeTrue(cpus < 64, "needs more producers than CPUs (at most 64)");
        CliTest.Run r = run(ExitCodes.OK, "softnic", "rate", "--producers", String.valueOf(cpus), "--messages", "2000",
                "--warmup", "0", "--repeats", "1", "--poll", "idle", "--format", "json");
        JsonNode rec = onlyRecord(r.out());
        assertEquals(cpus + 1, rec.get("spinning_threads").asInt(), rec.toString());
        assertTrue(rec.get("cpu_oversubscribed").asBoolean(), rec.toString());
        assertEquals(1, r.err().lines().filter(l -> l.startsWith("marrow: warning: ") && l.contains("busy-polling"))
                .count(), r.err());
    }
}
