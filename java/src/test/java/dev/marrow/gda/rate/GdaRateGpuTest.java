// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.api.Backend;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Target;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cpu target's delivery checks on cuda + softnic: GPU threads post into the emulator's host queues. */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class GdaRateGpuTest {
    static RateSpec cuda() {
        return RateSpec.defaults(Target.CUDA).withNic(RateNic.SOFTNIC, 2, null).withMessages(2048, 256);
    }

    @Test
    void everyPublicationDeliversEachMessageOnce() {
        for (Publication p : Publication.values()) {
            int batch = p == Publication.WARP ? 32 : 4;
            RateResult r = GdaRate.run(cuda().with(p, QpMapping.PER_BLOCK, 2, 64, 2, batch));
            assertTrue(r.exactlyOnce(), p + ": " + r);
            assertEquals(2L * 64 * 2048, r.messages(), p.label());
            assertEquals(2L * 64 * (2048 + 256), r.posts(), p.label());
            assertTrue(r.ticksAreCycles() && r.elapsedNs() > 0 && r.rateMmsgPerSec() > 0, r.toString());
            assertEquals(r.posts() / batch, r.doorbells(), p + ": one doorbell per batch");
        }
    }

    @Test
    void sharedQpsPointerPayloadsWrapAndHostDoorbells() {
        RateResult shared = GdaRate.run(cuda().with(Publication.SLOT, QpMapping.SHARED, 4, 32, 8, 2)
                .withQueues(4, 64, 4).withPayload(Payload.POINTER, 512));
        assertTrue(shared.exactlyOnce() && shared.sqFullWaits() > 0, shared.toString());
        RateResult host = GdaRate.run(cuda().with(Publication.WARP, QpMapping.PER_WARP, 2, 64, 4, 32)
                .withDoorbell(DoorbellMode.HOST, -1));
        assertTrue(host.exactlyOnce() && host.hostRings() > 0, host.toString());
    }

    @Test
    void everyScopeCompletesAndSamples() {
        for (CompletionScope s : CompletionScope.values()) {
            RateResult r = GdaRate.run(cuda().withScope(RateExperiment.SCOPE, s)
                    .with(Publication.SLOT, QpMapping.PER_BLOCK, 1, 1, 8, 1).withMessages(200, 20));
            assertEquals(200, r.samplesNs().length, s.label());
            assertTrue(r.exactlyOnce() && r.samplesNs()[199] > 0, s + ": " + r);
        }
    }
}
