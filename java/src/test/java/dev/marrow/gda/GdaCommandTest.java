// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `marrow gda latency` end to end on cpu + softnic . */
class GdaCommandTest {
    record Out(int exit, String out, String err) {
    }

    static Out run(String... args) {
        CommandLine cl = dev.marrow.cli.Main.commandLine();
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        cl.setOut(new PrintWriter(o));
        cl.setErr(new PrintWriter(e));
        int rc = cl.execute(args);
        return new Out(rc, o.toString(), e.toString());
    }

    @Test
    void singlePointAsJsonIsLabelledEmulated() {
        Out r = run("gda", "latency", "--target", "cpu", "--iters", "50", "--warmup", "5", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(2, lines.length, r.out());
        assertTrue(lines[0].contains("\"record\":\"header\""), lines[0]);
        assertTrue(lines[1].contains("\"hardware\":false") && lines[1].contains("\"experiment\":\"gda.latency\""), lines[1]);
        for (String k : new String[] {"issue_p50_ns", "putc_p99_ns", "rtt_min_ns", "rtt_max_ns", "\"warmup\":5", "\"iters\":50"}) {
            assertTrue(lines[1].contains(k), k + " in " + lines[1]);
        }
    }

    @Test
    void orderingSweepPrintsOneTableWithFourteenRows() {
        Out r = run("gda", "latency", "--sweep", "ordering", "--iters", "20", "--warmup", "2");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("EMULATED"), r.out());
        long rows = r.out().lines().filter(l -> l.contains("cpu+softnic")).count();
        assertEquals(14, rows, r.out());
        for (Ordering o : Ordering.values()) {
            assertTrue(r.out().contains(o.cliName()), o.cliName());
        }
    }

    @Test
    void sizeSweepCoversFig3a() {
        Out r = run("gda", "latency", "--sweep", "size", "--iters", "20", "--warmup", "2", "--format", "csv");
        assertEquals(0, r.exit(), r.err());
        assertEquals(1 + 8, r.out().strip().split("\n").length, r.out());
        assertTrue(r.out().contains(",220,"), r.out());
    }

    @Test
    void mlx5WithoutANicExitsSeventySeven() {
        Out r = run("gda", "latency", "--nic", "mlx5");
        assertEquals(77, r.exit(), r.err());
        assertTrue(r.err().contains("unavailable") || r.err().contains("not wired"), r.err());
    }

    @Test
    void gpuPlacementFailsClearly() {
        Out r = run("gda", "latency", "--placement", "gpu");
        assertTrue(r.exit() != 0);
        assertTrue(r.err().contains("needs DevX umem"), r.err());
    }

    @Test
    void badOrderingIsAUsageError() {
        Out r = run("gda", "latency", "--ordering", "sometimes");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("gpu-fence"), r.err());
    }
}
