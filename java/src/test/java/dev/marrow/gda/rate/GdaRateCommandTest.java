// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.fabric.Target;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `marrow gda rate` end to end on cpu + softnic, and the refusals. */
class GdaRateCommandTest {
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
    void eachPublicationDeliversEveryMessageOnce() {
        Out r = run("gda", "rate", "--threads", "4", "--publication", "lock", "--batch", "4", "--messages", "400",
                "--warmup", "40", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        String rec = r.out().strip().lines().filter(l -> l.contains("\"record\":\"result\""))
                .reduce((a, b) -> b).orElseThrow();
        for (String k : new String[] {"\"experiment\":\"gda.rate\"", "\"hardware\":false", "\"exactly_once\":true",
                "\"payload_errors\":0", "\"doorbells_per_msg\":0.25", "\"emu_wqe_rdma_write\":1760", "limited_by",
                "ns_per_msg_per_thread", "sq_full_wait_ns", "engine_busy_ratio"}) {
            assertTrue(rec.contains(k), k + " in " + rec);
        }
        for (String pub : new String[] {"slot", "warp"}) {
            Out p = run("gda", "rate", "--threads", "4", "--publication", pub, "--batch", "4", "--messages", "200",
                    "--warmup", "0", "--format", "json");
            assertEquals(0, p.exit(), p.err());
            assertTrue(p.out().contains("\"exactly_once\":true") && p.out().contains("\"posts\":800"), p.out());
        }
    }

    @Test
    void onePosterPerQpTakesTheSinglePosterPathAndRecordsItsStages() {
        Out r = run("gda", "rate", "--blocks", "2", "--qps", "2", "--batch", "4", "--messages", "400", "--warmup", "40",
                "--format", "json");
        assertEquals(0, r.exit(), r.err());
        String rec = r.out().strip().lines().filter(l -> l.contains("\"record\":\"result\"")).reduce((a, b) -> b)
                .orElseThrow();
        for (String k : new String[] {"\"rate_path\":\"auto\"", "\"rate_path_run\":\"solo\"", "\"exactly_once\":true",
                "\"ordering\":\"release-sys\"", "\"doorbells_per_msg\":0.25", "fence_share", "wqe_share", "reap_share",
                "poster_stage", "fence_ns", "wqe_ns"}) {
            assertTrue(rec.contains(k), k + " in " + rec);
        }
        Out s = run("gda", "rate", "--blocks", "2", "--qps", "2", "--batch", "4", "--messages", "400", "--warmup",
                "40", "--rate-path", "shared", "--format", "json");
        assertEquals(0, s.exit(), s.err());
        assertTrue(s.out().contains("\"rate_path_run\":\"shared\"") && s.out().contains("\"exactly_once\":true"),
                s.out());
        Out four = run("gda", "rate", "--threads", "4", "--messages", "40", "--warmup", "0", "--format", "json");
        assertEquals(0, four.exit(), four.err());
        assertTrue(four.out().contains("\"rate_path_run\":\"shared\""), "4 posters on one QP: " + four.out());
    }

    @Test
    void scopesSweepGivesOneLatencyRecordEach() {
        Out r = run("gda", "rate", "--experiment", "scope", "--scope", "all-qp,used-qp,per-qp,signal", "--qps", "4",
                "--messages", "30", "--warmup", "3", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        assertEquals(4, r.out().lines().filter(l -> l.contains("\"experiment\":\"gda.scope\"")).count(), r.out());
        assertTrue(r.out().contains("\"scope\":\"signal\"") && r.out().contains("putc_p50_ns"), r.out());
    }

    @Test
    void everyWqeSignaledThroughATinyRingRuns() {
        Out r = run("gda", "rate", "--signal-period", "1", "--log-sq", "4", "--window", "64", "--threads", "2",
                "--messages", "300", "--warmup", "0", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"window_effective\":16") && r.out().contains("\"signaled\":600"), r.out());
    }

    @Test
    void hostRungDoorbellsAreCounted() {
        Out r = run("gda", "rate", "--doorbell", "host", "--qps", "2", "--threads", "2", "--qp-map", "thread",
                "--messages", "200", "--warmup", "0", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"doorbell\":\"host\"") && r.out().contains("host_rings"), r.out());
    }

    @Test
    void badFlagsAreUsageErrors() {
        Out r = run("gda", "rate", "--publication", "warp", "--threads", "32", "--batch", "16");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--batch 16 must be a multiple of the 32 lanes"), r.err());
        assertEquals(2, run("gda", "rate", "--blocks", "133").exit());
        assertEquals(2, run("gda", "rate", "--window", "2", "--batch", "4").exit());
        assertEquals(2, run("gda", "rate", "--publication", "fast").exit());
        assertEquals(2, run("gda", "rate", "--messages", "10", "--batch", "4").exit());
        Out pin = run("gda", "rate", "--doorbell", "host", "--doorbell-cpu", "99999", "--messages", "8", "--warmup", "0");
        assertEquals(2, pin.exit(), pin.err()); // refused by the runner (EINVAL): a usage error naming the cause
        assertTrue(pin.err().contains("doorbell_cpu"), pin.err());
    }

    @Test
    void deviceEngineAndMissingNicAnswerUnavailable() {
        Out r = run("gda", "rate", "--target", "cuda", "--nic", "softnic-device", "--nic-sms", "1",
                "--messages", "64", "--warmup", "0");
        // 77 with the reason without a GPU; where one exists the device engine runs (an emulated NIC)
        assertTrue((r.exit() == 77 && r.err().startsWith("marrow: ") && r.err().length() > 12)
                || (r.exit() == 0 && r.out().contains("\"placement\":\"gpu\"")
                && r.out().contains("\"nic_hardware\":false")), r.exit() + " " + r.err());
        Out c = run("gda", "rate", "--target", "cuda", "--nic", "mlx5", "--messages", "10", "--warmup", "0");
        // 77 without a GPU or a ConnectX; where both exist it runs on real hardware
        assertTrue(c.exit() == 77 || (c.exit() == 0 && c.out().contains("\"nic_hardware\":true")), c.err());
        Out m = run("gda", "rate", "--target", "cpu", "--nic", "mlx5");
        assertEquals(2, m.exit(), m.err());
    }

    @Test
    void deviceEngineRefusesHostDoorbellsAndBadSmCounts() {
        Out host = run("gda", "rate", "--target", "cuda", "--nic", "softnic-device", "--doorbell", "host");
        assertEquals(2, host.exit(), host.err());
        assertTrue(host.err().contains("--doorbell device only"), host.err());
        Out sms = run("gda", "rate", "--target", "cuda", "--nic", "softnic-device", "--nic-sms", "0");
        assertEquals(2, sms.exit(), sms.err());
        assertTrue(sms.err().contains("--nic-sms"), sms.err());
    }

    @Test
    void specRejectsCpuOnDeviceEngine() {
        RateSpec s = RateSpec.defaults(Target.CPU).withNic(RateNic.SOFTNIC_DEVICE, 1, null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, s::validate);
        assertTrue(e.getMessage().contains("--target cpu"), e.getMessage());
    }

    @Test
    void apiRunReportsSignalPeriodClippedToTheWindow() {
        RateResult r = GdaRate.run(RateSpec.defaults(Target.CPU).with(Publication.SLOT, QpMapping.PER_BLOCK, 1, 2, 1, 2)
                .withQueues(64, 8, 6).withMessages(100, 0));
        assertEquals(7, r.signalPeriodEffective());
        assertEquals(8, r.windowEffective());
        assertTrue(r.exactlyOnce(), r.toString());
        assertEquals(200, r.messages());
    }
}
