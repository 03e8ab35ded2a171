// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The "proxy" command end to end , small and emulated. */
class ProxyCommandTest {
    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        CommandLine cl = dev.marrow.cli.Main.commandLine();
        if (!cl.getSubcommands().containsKey("proxy")) {
            cl.addSubcommand("proxy", new dev.marrow.cli.ProxyCommand());
            cl.setExitCodeExceptionMapper(cl.getExitCodeExceptionMapper());
            cl.setExecutionExceptionHandler(cl.getExecutionExceptionHandler());
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return new Run(cl.execute(args), out.toString(), err.toString());
    }

    @Test
    void rateJsonIsLabelledEmulatedAndCarriesWorkerCounters() throws Exception {
        Run r = run("proxy", "rate", "--rings", "2", "--batch", "1,8", "--messages", "20000", "--warmup", "2000",
                "--poll", "idle", "--log-slots", "6", "--format", "json");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(4, lines.length, r.out()); // header, 2 records, footer
        JsonMapper m = JsonMapper.builder().build();
        for (int i = 1; i < lines.length - 1; i++) {
            JsonNode n = m.readTree(lines[i]);
            assertEquals("proxy.rate", n.get("experiment").asString());
            assertFalse(n.get("hardware").asBoolean());
            assertTrue(n.get("rate_mmsg_s").asDouble() > 0);
            assertEquals(0, n.get("verify_errors").asLong());
            assertTrue(n.get("chain_len_mean").asDouble() >= 1);
            assertEquals(1, n.get("workers").asInt());
            assertEquals(1, n.get("per_worker").size());
        }
    }

    @Test
    void latencyTableSaysEmulated() {
        Run r = run("proxy", "latency", "--iters", "200", "--warmup", "20", "--poll", "idle", "--handoff", "tuned");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("EMULATED"), r.out());
        assertTrue(r.out().contains("issue_p50_ns") && r.out().contains("rtt_p50_ns"), r.out());
    }

    @Test
    void verbsWithoutNicExits77() {
        Run r = run("proxy", "rate", "--nic", "verbs", "--messages", "10");
        assertEquals(77, r.code(), r.err());
        assertTrue(r.err().contains("verbs backend"), r.err());
    }

    @Test
    void badArgumentsAreUsageErrors() {
        Run r = run("proxy", "rate", "--producer", "fpga");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--producer"), r.err());
    }
}
