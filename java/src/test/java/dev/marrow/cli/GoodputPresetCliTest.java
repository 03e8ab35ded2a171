// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static dev.marrow.cli.PresetsCliTest.results;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --preset on gda goodput and proxy goodput (cpu target and producers, software NIC, small): the
 * preset's knobs land on the flags the rate and latency commands map them to, an explicit flag
 * wins, records (the summary too) carry the preset, and a preset needing a knob goodput lacks is
 * refused with exit 2 naming the knob. No timing is asserted.
 */
class GoodputPresetCliTest {
    static final String[] GDA = {"gda", "goodput", "--sizes", "8,64", "--bytes-per-point", "16384", "--window", "16",
        "--signal-every", "4", "--warmup", "16", "--format", "json", "--quiet"};
    static final String[] PROXY = {"proxy", "goodput", "--producer", "cpu", "--sizes", "64", "--bytes-per-point",
        "65536", "--warmup-fraction", "0", "--format", "json", "--quiet"};

    static String[] with(String[] base, String... more) {
        String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, a, base.length, more.length);
        return a;
    }

    static List<JsonNode> ok(String... args) {
        CliTest.Run r = CliTest.run(args);
        assertEquals(0, r.code(), r.err());
        List<JsonNode> recs = results(r.out());
        assertFalse(recs.isEmpty(), r.out());
        return recs;
    }

    @Test
    void gdaGoodputTakesThePresetsOrderingAndEveryRecordCarriesThePreset() {
        List<JsonNode> recs = ok(with(GDA, "--preset", "nccl-gin-gdaki"));
        for (JsonNode n : recs) {
            assertEquals("nccl-gin-gdaki", n.get("preset").asString(), n.toString());
            assertEquals("gpu-fence", n.get("ordering").asString(), n.toString());
        }
        assertEquals("gda.goodput.summary", recs.getLast().get("experiment").asString());
        assertTrue(recs.getFirst().get("valid").asBoolean());
    }

    @Test
    void gdaGoodputExplicitOrderingOverridesThePreset() {
        JsonNode n = ok(with(GDA, "--preset", "nccl-gin-gdaki", "--ordering", "release-sys")).getFirst();
        assertEquals("release-sys", n.get("ordering").asString());
        assertEquals("--ordering", n.get("preset_overridden").asString());
    }

    @Test
    void gdaGoodputRefusesAPresetNeedingAKnobItLacks() {
        CliTest.Run r = CliTest.run(with(GDA, "--preset", "nvshmem-ibgda"));
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("qps_per_peer = 2") && r.err().contains("gda goodput"), r.err());
        CliTest.Run db = CliTest.run(with(GDA, "--preset", "deepep-v1"));
        assertEquals(ExitCodes.USAGE, db.code(), db.err());
        assertTrue(db.err().contains("doorbell_batch = 4"), db.err());
        assertTrue(r.out().isEmpty() && db.out().isEmpty(), "a refusal writes no records");
    }

    @Test
    void proxyGoodputAppliesTheLayoutAndTheOverrideWins() {
        JsonNode n = ok(with(PROXY, "--preset", "mscclpp", "--workers", "2")).getFirst();
        assertEquals("mscclpp", n.get("preset").asString());
        assertEquals(1, n.get("batch").asInt(), "one request per post");
        assertEquals(2, n.get("workers").asInt());
        assertEquals(2, n.get("rings").asInt(), "one ring per worker at the explicit T = 2");
        JsonNode f = ok(with(PROXY, "--preset", "fabric-lib", "--batch", "8")).getFirst();
        assertEquals(1, f.get("workers").asInt());
        assertEquals(8, f.get("batch").asInt(), "explicit --batch wins over the preset's 4");
        assertEquals("--batch,--producer", f.get("preset_overridden").asString(), "the test's --producer cpu counts too");
        assertTrue(f.get("preset_knobs").asString().contains("workers=1"), f.toString());
    }

    @Test
    void proxyGoodputRefusesAPresetNeedingAKnobItLacks() {
        CliTest.Run r = CliTest.run(with(PROXY, "--preset", "nccl-gin-proxy"));
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("proxy goodput has no rings_per_context knob"), r.err());
        CliTest.Run wrong = CliTest.run(with(PROXY, "--preset", "nccl-gin-gdaki"));
        assertEquals(ExitCodes.USAGE, wrong.code(), wrong.err());
        assertTrue(wrong.err().contains("use it with marrow gda"), wrong.err());
    }
}
