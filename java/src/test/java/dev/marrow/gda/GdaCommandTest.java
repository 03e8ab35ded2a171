// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

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
        assertEquals(3, lines.length, r.out()); // header, the record, footer
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
        // the curated table (docs/design/records.md): comment lines, one column line, one row per point
        long rows = r.out().lines().filter(l -> !l.startsWith("#")).count() - 1;
        assertEquals(14, rows, r.out());
        assertEquals(14, r.out().lines().filter(l -> l.strip().startsWith("cpu ")).count(), r.out());
        for (Ordering o : Ordering.values()) {
            assertTrue(r.out().contains(o.label()), o.label());
        }
    }

    @Test
    void sizeSweepCoversFig3a() {
        Out r = run("gda", "latency", "--sweep", "size", "--iters", "20", "--warmup", "2", "--format", "csv");
        assertEquals(0, r.exit(), r.err());
        // CSV: the header and footer as comment lines, one column line, one line per size
        assertEquals(1 + 8, r.out().lines().filter(l -> !l.startsWith("#")).count(), r.out());
        assertTrue(r.out().startsWith("# record=header\n"), r.out());
        assertTrue(r.out().contains(",220,"), r.out());
    }

    @Test
    void mlx5WithoutANicExitsSeventySevenWithTheVerbsReason() {
        assumeFalse(Backend.VERBS.isAvailable(), "an mlx5 NIC is present: see MiniGdaMlx5Test");
        Out r = run("gda", "latency", "--nic", "mlx5", "--target", "cuda");
        assertEquals(77, r.exit(), r.err());
        String reason = Backend.VERBS.unavailabilityCause().getMessage();
        System.out.println("gda latency --nic mlx5 --target cuda: " + r.err().strip());
        assertTrue(r.err().contains("backend 'verbs' is unavailable") && r.err().contains(reason), r.err());
    }

    @Test
    void cpuPlusMlx5IsAUsageError() {
        Out r = run("gda", "latency", "--nic", "mlx5", "--target", "cpu");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--target cuda only") && r.err().contains("cpu + mlx5 is not supported"), r.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--peer|nocolon|--peer expects host:port",
            "--peer|host:|--peer expects host:port",
            "--peer|host:port|--peer expects host:port",
            "--peer|host:70000|--peer 'host:70000': port outside 1..65535",
            "--peer|::1:7000|put an IPv6 address in brackets",
            "--peer-role|sideways|--peer-role must be initiator or responder",
    })
    void peerParsingErrorsAreUsageErrorsNamingTheFlag(String flag, String value, String message) {
        String[] extra = flag.equals("--peer-role") ? new String[] {"--peer", "host:7000"} : new String[0];
        String[] args = concat(new String[] {"gda", "latency", "--nic", "mlx5", "--target", "cuda", flag, value}, extra);
        Out r = run(args);
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(flag) && r.err().contains(message), r.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--peer-role initiator --peer :7000|--peer-role initiator connects to the responder: --peer must be host:port",
            "--peer-role responder --peer host:7000|--peer-role responder listens for the initiator: --peer must be :port",
            "--peer-role responder|--peer-role responder needs --peer",
            "--peer host:7000 --sweep ordering|--sweep with --peer is not supported",
            "--peer :7000 --sweep size|--sweep with --peer is not supported",
            "--peer 127.0.0.1:9 --experiments rtt --size 16|round trip polls one 8-byte data word",
            "--peer 127.0.0.1:9 --ordering sometimes|gpu-fence",
            "--peer 127.0.0.1:9 --experiments ping|unknown experiment 'ping'",
            "--peer-timeout-s 0 --peer host:7000|--peer-timeout-s must be > 0",
            "--gid-index -2|--gid-index must be >= 0",
    })
    void inconsistentPeerOptionsAreUsageErrors(String opts, String message) {
        Out r = run(concat(new String[] {"gda", "latency", "--nic", "mlx5", "--target", "cuda"}, opts.split(" ")));
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(message), r.err());
    }

    @ParameterizedTest
    @CsvSource({"--device,mlx5_0", "--gid-index,3"})
    void mlx5OptionsOnTheSoftwareNicAreUsageErrors(String flag, String value) {
        Out r = run("gda", "latency", flag, value);
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(flag + " applies to --nic mlx5 only"), r.err());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void gpuPlacementNeedsTheCudaTargetAndSkipsWithTheReasonWithoutAGpu() {
        Out r = run("gda", "latency", "--placement", "gpu", "--iters", "10", "--warmup", "1");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--target cuda"), r.err());
        Out sms = run("gda", "latency", "--nic-sms", "2", "--iters", "10", "--warmup", "1");
        assertEquals(2, sms.exit(), sms.err());
        assertTrue(sms.err().contains("--nic-sms applies to --placement gpu"), sms.err());
        Out zero = run("gda", "latency", "--target", "cuda", "--placement", "gpu", "--nic-sms", "0");
        assertEquals(2, zero.exit(), zero.err());
        Out mlx5 = run("gda", "latency", "--target", "cuda", "--nic", "mlx5", "--placement", "gpu", "--iters", "10");
        assertEquals(77, mlx5.exit(), mlx5.err());
        assertTrue(mlx5.err().contains("--placement gpu (queues in GPU memory through DevX)"), mlx5.err());
        // The first missing piece, in order: GPU, then libibverbs/mlx5 device, then DevX on it.
        if (!Backend.CUDA.isAvailable()) {
            assertTrue(mlx5.err().contains(Backend.CUDA.unavailabilityCause().getMessage()), mlx5.err());
        } else if (!Backend.VERBS.isAvailable()) {
            assertTrue(mlx5.err().contains(Backend.VERBS.unavailabilityCause().getMessage()), mlx5.err());
        }
        org.junit.jupiter.api.Assumptions.assumeFalse(Backend.CUDA.isAvailable(),
                "a GPU is present: MiniGdaDeviceEngineTest runs placement gpu there");
        Out g = run("gda", "latency", "--target", "cuda", "--placement", "gpu", "--iters", "10", "--warmup", "1");
        assertEquals(77, g.exit(), g.err());
        assertFalse(g.err().contains("not implemented"), g.err());
        assertFalse(g.err().isBlank(), "the skip names its reason");
    }

    @Test
    void defaultOrderingFollowsTheHostPlacementAndRecordsSayItIsSafeOnHardware() {
        Out r = run("gda", "latency", "--iters", "20", "--warmup", "2", "--experiments", "issue", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        String rec = r.out().strip().split("\n")[1];
        assertTrue(rec.contains("\"ordering\":\"release-sys\"") && rec.contains("\"ordering_safe_on_hardware\":true"),
                rec);
    }

    @Test
    void aGpuScopeOrderingRunsOnTheSoftwareNicAndIsMarkedUnsafeOnHardware() {
        Out r = run("gda", "latency", "--ordering", "gpu-fence", "--iters", "20", "--warmup", "2", "--experiments",
                "issue", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        String rec = r.out().strip().split("\n")[1];
        assertTrue(rec.contains("\"ordering\":\"gpu-fence\"") && rec.contains("\"ordering_safe_on_hardware\":false"),
                rec);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--ordering gpu-fence|--ordering gpu-fence orders the WQE",
            "--ordering threadfence|--ordering threadfence orders the WQE",
            "--ordering none|--ordering none orders nothing",
            "--sweep ordering|--ordering none orders nothing",
            "--ordering release-gpu --peer 127.0.0.1:9|--ordering release-gpu orders the WQE",
    })
    void mlx5WithHostQueuesRefusesUnsafeOrderingsBeforeTouchingAnyDevice(String opts, String message) {
        // Without the guard these would open the device: exit 77 here (no NIC), or connect to the peer.
        Out r = run(concat(new String[] {"gda", "latency", "--nic", "mlx5", "--target", "cuda"}, opts.split(" ")));
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(message) && r.err().contains("--allow-unsafe-ordering"), r.err());
    }

    @Test
    void allowUnsafeOrderingLetsTheMlx5RunProceedToTheDevice() {
        assumeFalse(Backend.VERBS.isAvailable(), "an mlx5 NIC is present: the run would really start");
        Out r = run("gda", "latency", "--nic", "mlx5", "--target", "cuda", "--ordering", "gpu-fence",
                "--allow-unsafe-ordering");
        assertEquals(77, r.exit(), r.err());
        assertTrue(!r.err().contains("--allow-unsafe-ordering"), r.err());
    }

    @Test
    void badOrderingIsAUsageError() {
        Out r = run("gda", "latency", "--ordering", "sometimes");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("gpu-fence"), r.err());
    }
}
