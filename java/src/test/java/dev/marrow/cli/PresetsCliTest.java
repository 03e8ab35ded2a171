// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** marrow presets list/show, and --preset on the gda and proxy commands (software NIC, CPU). */
class PresetsCliTest {

    static List<JsonNode> results(String out) {
        List<JsonNode> l = new ArrayList<>();
        JsonMapper m = JsonMapper.builder().build();
        for (String line : out.split("\n")) {
            if (line.startsWith("{")) {
                JsonNode n = m.readTree(line);
                if ("result".equals(n.path("record").asString())) {
                    l.add(n);
                }
            }
        }
        return l;
    }

    @Test
    void listNamesEveryPresetAndTheCommandsThatRunIt() {
        CliTest.Run r = CliTest.run("presets", "list");
        assertEquals(0, r.code(), r.err());
        for (String name : List.of("nvshmem-ibgda", "nccl-gin-gdaki", "deepep-v1", "nvshmem-ibrc", "nccl-gin-proxy",
                "uccl-ep", "mscclpp", "fabric-lib")) {
            assertTrue(r.out().contains(name), name + " missing:\n" + r.out());
        }
        String gdaki = r.out().lines().filter(l -> l.startsWith("nccl-gin-gdaki")).findFirst().orElseThrow();
        assertTrue(gdaki.contains("gda latency"), gdaki);
        String ibgda = r.out().lines().filter(l -> l.startsWith("nvshmem-ibgda ")).findFirst().orElseThrow();
        assertTrue(ibgda.contains("gda rate") && !ibgda.contains("gda latency"),
                "two QPs per peer: gda rate runs it, gda latency does not: " + ibgda);
        for (String name : List.of("nvshmem-ibgda-16qp ", "deepep-v1 ")) {
            String line = r.out().lines().filter(l -> l.startsWith(name)).findFirst().orElseThrow();
            assertTrue(line.contains("gda rate"), line);
        }
        assertTrue(!gdaki.contains("gda rate"), "a context completion has no gda rate equivalent: " + gdaki);
    }

    @Test
    void showGivesEveryChoiceWithItsSourceAndTheRefusalWithTheKnob() {
        CliTest.Run r = CliTest.run("presets", "show", "nvshmem-ibgda");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("ordering = threadfence") && r.out().contains("source: Table 4"), r.out());
        assertTrue(r.out().contains("qps_per_peer = 2"), r.out());
        assertTrue(r.out().contains("gda latency: refuses: preset nvshmem-ibgda sets qps_per_peer = 2"), r.out());
        CliTest.Run bad = CliTest.run("presets", "show", "nope");
        assertEquals(ExitCodes.USAGE, bad.code());
        assertTrue(bad.err().contains("unknown preset 'nope'"), bad.err());
    }

    @Test
    void gdaLatencyTakesThePresetsOrderingAndTheRecordCarriesIt() {
        CliTest.Run r = CliTest.run("gda", "latency", "--preset", "nccl-gin-gdaki", "--experiments", "putc",
                "--iters", "20", "--warmup", "2", "--format", "json", "--quiet");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = results(r.out()).getFirst();
        assertEquals("nccl-gin-gdaki", rec.get("preset").asString());
        assertEquals("gpu-fence", rec.get("ordering").asString());
        assertTrue(rec.get("preset_knobs").asString().contains("completion_scope=context"), rec.toString());
    }

    @Test
    void anExplicitFlagOverridesThePreset() {
        CliTest.Run r = CliTest.run("gda", "latency", "--preset", "nccl-gin-gdaki", "--ordering", "fence-sys",
                "--experiments", "issue", "--iters", "20", "--warmup", "2", "--format", "json", "--quiet");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = results(r.out()).getFirst();
        assertEquals("fence-sys", rec.get("ordering").asString());
        assertEquals("--ordering", rec.get("preset_overridden").asString());
    }

    @Test
    void recordsWithoutAPresetSaySo() {
        CliTest.Run r = CliTest.run("gda", "latency", "--experiments", "issue", "--iters", "20", "--warmup", "2",
                "--format", "json", "--quiet");
        assertEquals(0, r.code(), r.err());
        assertEquals("none", results(r.out()).getFirst().get("preset").asString());
    }

    @Test
    void aPresetNeedingAKnobTheCommandLacksIsRefusedWithTheKnobNamed() {
        CliTest.Run r = CliTest.run("gda", "latency", "--preset", "deepep-v1", "--iters", "20");
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("doorbell_batch = 4") && r.err().contains("never approximated"), r.err());
        CliTest.Run gin = CliTest.run("proxy", "rate", "--preset", "nccl-gin-proxy", "--messages", "100");
        assertEquals(ExitCodes.USAGE, gin.code(), gin.err());
        assertTrue(gin.err().contains("proxy rate has no rings_per_context knob"), gin.err());
        CliTest.Run wrong = CliTest.run("proxy", "latency", "--preset", "nccl-gin-gdaki");
        assertEquals(ExitCodes.USAGE, wrong.code(), wrong.err());
        assertTrue(wrong.err().contains("use it with marrow gda"), wrong.err());
    }

    @Test
    void proxyRateScalesRingsPerWorkerAndRecordsThePreset() {
        CliTest.Run r = CliTest.run("proxy", "rate", "--preset", "mscclpp", "--workers", "2", "--messages", "2000",
                "--warmup", "100", "--format", "json", "--quiet");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = results(r.out()).getFirst();
        assertEquals("mscclpp", rec.get("preset").asString());
        assertEquals(1, rec.get("batch").asInt(), "one request per post");
        assertEquals(2, rec.get("rings").asInt(), "one ring per worker, at the explicit T = 2");
        assertEquals("batch=1,rings_per_worker=1", rec.get("preset_knobs").asString());
    }

    @Test
    void gdaRateMapsThePresetsKnobsOntoItsFlags() {
        CliTest.Run r = CliTest.run("gda", "rate", "--target", "cpu", "--preset", "deepep-v1", "--messages", "64",
                "--warmup", "0", "--repeats", "1", "--format", "json", "--quiet");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = results(r.out()).getFirst();
        assertEquals("deepep-v1", rec.get("preset").asString());
        assertEquals("release-gpu", rec.get("ordering").asString());
        assertEquals(4, rec.get("batch").asInt(), "a doorbell every 4th message");
        assertEquals("ordering=release-gpu,completion_scope=used-qp,doorbell_batch=4",
                rec.get("preset_knobs").asString());
        CliTest.Run scope = CliTest.run("gda", "rate", "--target", "cpu", "--preset", "nvshmem-ibgda",
                "--experiment", "scope", "--messages", "8", "--warmup", "0", "--format", "json", "--quiet");
        assertEquals(0, scope.code(), scope.err());
        JsonNode s = results(scope.out()).getFirst();
        assertEquals("all-qp", s.get("scope").asString());
        assertEquals(2, s.get("qps").asInt());
        assertEquals("warp", s.get("publication").asString());
        assertEquals("threadfence", s.get("ordering").asString());
    }

    @Test
    void gdaRateExplicitFlagsOverrideThePreset() {
        CliTest.Run r = CliTest.run("gda", "rate", "--target", "cpu", "--preset", "deepep-v1", "--batch", "2",
                "--ordering", "fence-sys", "--messages", "64", "--warmup", "0", "--repeats", "1", "--format", "json",
                "--quiet");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = results(r.out()).getFirst();
        assertEquals(2, rec.get("batch").asInt());
        assertEquals("fence-sys", rec.get("ordering").asString());
        assertEquals("--ordering,--batch", rec.get("preset_overridden").asString());
        assertEquals("completion_scope=used-qp", rec.get("preset_knobs").asString());
    }

    @Test
    void gdaRateRefusesAChoiceWithNoEquivalentNamingTheKnob() {
        CliTest.Run r = CliTest.run("gda", "rate", "--target", "cpu", "--preset", "nccl-gin-gdaki", "--messages",
                "64", "--warmup", "0");
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("completion_scope = context") && r.err().contains("never approximated"),
                r.err());
        CliTest.Run proxy = CliTest.run("gda", "rate", "--preset", "uccl-ep");
        assertEquals(ExitCodes.USAGE, proxy.code(), proxy.err());
        assertTrue(proxy.err().contains("use it with marrow proxy"), proxy.err());
    }
}
