// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.gda.EngineLayout;
import dev.marrow.api.Backend;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Target;
import dev.marrow.results.ResultRecord;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** cuda + softnic-device: GPU threads post into GPU-resident queues that the device engine kernel serves. */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class GdaRateDeviceEngineGpuTest {
    static RateSpec device(int nicSms) {
        return RateSpec.defaults(Target.CUDA).withNic(RateNic.SOFTNIC_DEVICE, 1, null).withNicSms(nicSms)
                .withMessages(2048, 256);
    }

    @Test
    void everyPublicationDeliversEachMessageOnceOnTheDeviceEngine() {
        for (Publication p : Publication.values()) {
            int batch = p == Publication.WARP ? 32 : 4;
            RateResult r = GdaRate.run(device(2).with(p, QpMapping.PER_BLOCK, 4, 64, 4, batch));
            assertTrue(r.exactlyOnce(), p + ": " + r);
            assertEquals(4L * 64 * 2048, r.messages(), p.label());
            assertEquals(r.posts(), (long) r.emuCounters().get("emu_wqe_rdma_write"), "the engine executed every WQE");
            assertEquals(r.posts() / batch, r.doorbells(), p + ": one doorbell per batch");
            assertTrue(r.elapsedNs() > 0 && r.rateMmsgPerSec() > 0, r.toString());
            DeviceEngineUse d = r.deviceEngine();
            assertNotNull(d);
            assertEquals(2, d.nicSms());
            assertTrue(d.distinctSms() >= 1 && d.distinctSms() <= 2 && d.deviceSms() > 2, d.toString());
            // The default layout, as the engine reported it, with its default engine threads per SM.
            assertEquals(EngineLayout.LANE.label(), d.layout(), d.toString());
            assertTrue(d.threadsPerSm() >= 1 && d.threadsPerSm() <= 8, d.toString());
            assertTrue(r.engineBusyRatio() > 0 && r.engineBusyRatio() <= 1, "busy ratio " + r.engineBusyRatio());
        }
    }

    @Test
    void sharedQpsWithPointerPayloadsAndTheRecord() {
        RateResult r = GdaRate.run(device(4).with(Publication.SLOT, QpMapping.SHARED, 8, 32, 16, 2)
                .withQueues(4, 64, 4).withPayload(Payload.POINTER, 512));
        assertTrue(r.exactlyOnce() && r.sqFullWaits() > 0, r.toString());
        ResultRecord rec = RateRecords.record(r);
        java.util.Map<String, Object> flat = rec.flat(); // ResultRecord has no JSON toString
        assertEquals("softnic-device", String.valueOf(flat.get("nic")), flat.toString());
        assertEquals("gpu", String.valueOf(flat.get("placement")), flat.toString());
        assertFalse(r.spec().nic().hardware(), "the device engine is an emulated NIC");
    }

    @Test
    void scopeOnGpuResidentQueues() {
        RateResult r = GdaRate.run(device(1).withScope(RateExperiment.SCOPE, CompletionScope.ALL_QP)
                .with(Publication.SLOT, QpMapping.PER_BLOCK, 1, 1, 4, 1).withMessages(200, 20));
        assertEquals(200, r.samplesNs().length);
        assertTrue(r.exactlyOnce() && r.samplesNs()[199] > 0, r.toString());
    }
}
