// SPDX-License-Identifier: Apache-2.0
package dev.marrow.presets;

import dev.marrow.gda.Ordering;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The preset files load, every choice cites a table or section of "GPU-Initiated Communication: Dissecting
 * Down to the Bone", and the rules apply, override and refuse as docs/design/presets.md says.
 */
class PresetsTest {

    @Test
    void everyLibraryHasAPresetAndEveryChoiceCitesATableOrSection() {
        Map<String, Preset> all = Presets.all();
        assertEquals(Set.of("nvshmem-ibgda", "nvshmem-ibgda-16qp", "nccl-gin-gdaki", "deepep-v1", "nvshmem-ibrc",
                "nccl-gin-proxy", "uccl-ep", "mscclpp", "fabric-lib"), all.keySet());
        for (Preset p : all.values()) {
            assertFalse(p.choices().isEmpty(), p.name());
            for (Choice c : p.choices().values()) {
                assertTrue(c.source().matches(".*(Table \\d+|§\\d(\\.\\d)*).*"),
                        p.name() + "." + c.knob().key() + " cites no table or section: " + c.source());
            }
        }
    }

    @Test
    void valuesAreTypedByTheirKnob() {
        Preset ibgda = Presets.get("nvshmem-ibgda");
        assertEquals(Ordering.THREADFENCE, ibgda.value(Knob.ORDERING).orElseThrow());
        assertEquals(2, ibgda.value(Knob.QPS_PER_PEER).orElseThrow());
        assertEquals("all-qps", ibgda.value(Knob.COMPLETION_SCOPE).orElseThrow());
        assertEquals(32, ibgda.value(Knob.DOORBELL_BATCH).orElseThrow());
        assertEquals(16, Presets.get("nvshmem-ibgda-16qp").value(Knob.QPS_PER_PEER).orElseThrow());
        assertEquals(Ordering.GPU_FENCE, Presets.get("nccl-gin-gdaki").value(Knob.ORDERING).orElseThrow());
        assertEquals(Ordering.RELEASE_GPU, Presets.get("deepep-v1").value(Knob.ORDERING).orElseThrow());
        assertEquals(4, Presets.get("deepep-v1").value(Knob.DOORBELL_BATCH).orElseThrow());
        assertEquals(8, Presets.get("uccl-ep").value(Knob.RINGS_PER_WORKER).orElseThrow());
        assertEquals(4, Presets.get("fabric-lib").value(Knob.BATCH).orElseThrow());
        assertEquals(4, Presets.get("nccl-gin-proxy").value(Knob.WORKERS).orElseThrow());
    }

    @Test
    void aFileWithoutACitationOrWithABadValueDoesNotLoad() {
        String ok = "{\"name\":\"x\",\"library\":\"L\",\"suite\":\"proxy\",\"summary\":\"s\","
                + "\"choices\":{\"workers\":{\"value\":\"2\",\"source\":\"Table 1\"}}}";
        assertEquals(2, Presets.parse("x.json", ok).value(Knob.WORKERS).orElseThrow());
        IllegalStateException noSource = assertThrows(IllegalStateException.class,
                () -> Presets.parse("x.json", ok.replace(",\"source\":\"Table 1\"", "")));
        assertTrue(noSource.getMessage().contains("x.json") && noSource.getMessage().contains("cites no"),
                noSource.getMessage());
        IllegalStateException bad = assertThrows(IllegalStateException.class,
                () -> Presets.parse("x.json", ok.replace("\"2\"", "\"0\"")));
        assertTrue(bad.getMessage().contains("workers must be a positive integer"), bad.getMessage());
        IllegalStateException knob = assertThrows(IllegalStateException.class,
                () -> Presets.parse("x.json", ok.replace("\"workers\"", "\"warp_size\"")));
        assertTrue(knob.getMessage().contains("unknown knob 'warp_size'"), knob.getMessage());
        IllegalStateException name = assertThrows(IllegalStateException.class, () -> Presets.parse("y.json", ok));
        assertTrue(name.getMessage().contains("must be x.json"), name.getMessage());
    }

    @Test
    void anUnknownPresetNamesTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Presets.get("nope"));
        assertTrue(e.getMessage().contains("unknown preset 'nope'") && e.getMessage().contains("uccl-ep"),
                e.getMessage());
    }

    /** A command with a flag for workers, and batch 1 only. */
    private static final class Fake {
        Integer workers;
        final List<String> applied = new ArrayList<>();

        PresetRules rules() {
            return new PresetRules("fake rate", "proxy")
                    .knob(Knob.WORKERS, "--workers", (v, p) -> null, v -> {
                        workers = (Integer) v;
                        applied.add("workers");
                    })
                    .fixed(Knob.BATCH, 1, "posts one request at a time")
                    .fixed(Knob.PRODUCER, "cpu", "has CPU producers only");
        }
    }

    private static final Preset ONE_WORKER = Presets.parse("one-worker.json", "{\"name\":\"one-worker\","
            + "\"library\":\"L\",\"suite\":\"proxy\",\"summary\":\"s\","
            + "\"choices\":{\"workers\":{\"value\":\"1\",\"source\":\"Table 1\"}}}");

    @Test
    void explicitFlagsOverrideThePresetAndTheRecordSaysSo() {
        Fake f = new Fake();
        PresetRules.Applied a = f.rules().apply(ONE_WORKER, flag -> false);
        assertEquals(1, f.workers);
        assertEquals(Map.of("workers", "1"), a.applied());
        Fake g = new Fake();
        g.workers = 3; // as if --workers 3 was given
        PresetRules.Applied b = g.rules().apply(ONE_WORKER, "--workers"::equals);
        assertEquals(3, g.workers, "an explicit flag wins over the preset");
        assertTrue(g.applied.isEmpty());
        assertEquals(List.of("--workers"), b.overridden());
        var rec = b.tag(new dev.marrow.results.ResultRecord("fake.rate", "softnic", false));
        assertEquals("one-worker", rec.params().get("preset"));
        assertEquals("--workers", rec.params().get("preset_overridden"));
    }

    @Test
    void aKnobTheCommandLacksOrAValueItCannotRunIsRefusedByName() {
        Fake f = new Fake();
        PresetRefusedException lacks = assertThrows(PresetRefusedException.class,
                () -> f.rules().apply(Presets.get("nvshmem-ibrc"), flag -> false));
        assertEquals(Knob.RINGS_PER_PE, lacks.knob());
        assertTrue(lacks.getMessage().contains("rings_per_pe = 1") && lacks.getMessage().contains("Table 1")
                && lacks.getMessage().contains("fake rate has no rings_per_pe knob"), lacks.getMessage());
        PresetRefusedException value = assertThrows(PresetRefusedException.class,
                () -> f.rules().apply(Presets.get("fabric-lib"), flag -> false));
        assertEquals(Knob.BATCH, value.knob());
        assertTrue(value.getMessage().contains("batch = 4") && value.getMessage().contains("batch = 1 only"),
                value.getMessage());
        assertNull(f.workers, "a refused preset applies nothing");
        IllegalArgumentException suite = assertThrows(IllegalArgumentException.class,
                () -> f.rules().apply(Presets.get("deepep-v1"), flag -> false));
        assertTrue(suite.getMessage().contains("GPU-submitted library"), suite.getMessage());
    }
}
