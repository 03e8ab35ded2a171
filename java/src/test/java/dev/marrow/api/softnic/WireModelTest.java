// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wire model through the Java API: IB values from C, serialization times, set/clear, statistics. */
class WireModelTest {
    @Test
    void infinibandAt200GbpsSerializesKnownSizes() {
        WireModel w = WireModel.infiniband(200);
        assertEquals(200_000_000_000L, w.bitsPerSecond());
        assertEquals(4096, w.mtu());
        assertEquals(26, w.packetOverhead());   // LRH 8 + BTH 12 + ICRC 4 + VCRC 2
        assertEquals(16, w.writeOverhead());    // RETH
        assertEquals(2_000, w.timePs(8));       // 50 B
        assertEquals(165_520, w.timePs(4096));  // 4138 B
        assertEquals(42_209_920, w.timePs(1 << 20));
        assertEquals(25.0, w.lineRateGBps());
        assertEquals(2048 * 1000.0 / 83_600, w.ceilingGBps(2048), 1e-9);
        assertTrue(w.describe().containsKey("gbps"));
    }

    @Test
    void noneHasNoRateAndSaysSo() {
        assertFalse(WireModel.NONE.enabled());
        assertEquals(0, WireModel.NONE.timePs(4096));
        assertEquals("none", WireModel.ofGbps(0).describe().get("name"));
        assertThrows(IllegalArgumentException.class, () -> WireModel.infiniband(-1));
        assertThrows(IllegalArgumentException.class, () -> WireModel.infiniband(20_000));
    }

    @Test
    void aSoftNicCountsWhatItsPortCarried() {
        SoftNic.Options o = SoftNic.Options.defaults().withPollMode(SoftNic.PollMode.IDLE).withQuiet(true);
        try (LoopbackRig rig = new LoopbackRig(o, 8, 10, 16, 8192)) {
            rig.nic().setWire(WireModel.infiniband(100));
            SoftNicBench.rate(rig.qp(), 4096, 4, 64, 0, rig.source(), rig.destination(), 5_000_000_000L);
            SoftNic.WireStats s = rig.nic().wireStats();
            assertEquals(64, s.messages());
            assertEquals(64 * 4096, s.payloadBytes());
            assertEquals(64 * (4096 + 26 + 16), s.wireBytes());
            assertEquals(64, s.packets());
            SoftnicAssert.samePrefix(rig, 4096);
            rig.nic().setWire(WireModel.NONE);
            assertEquals(0, rig.nic().wireStats().messages());
        }
    }
}
