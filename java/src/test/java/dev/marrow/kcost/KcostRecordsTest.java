// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The kernel-cost record schema and what each record says was real, without a GPU. */
class KcostRecordsTest {
    static final KcostSettings S = new KcostSettings(528, 256, 524288, 16384, 5, 1, 1_000_000_000L, 0, 4, 32, 16, -1);

    static KcostMeasurement m(KcostPoint p, int regs, int bps, long msgs, long cpl, double... ms) {
        return new KcostMeasurement(p, regs, 0, bps, 132, ms, msgs, cpl);
    }

    @Test
    void baselineAndDormantAreRealGpuResultsWithoutANic() {
        KcostPoint b = KcostPoint.absent(Caller.COMPUTE, 32);
        KcostPoint d = KcostPoint.dormant(Caller.COMPUTE, 32, Transport.GDA);
        KcostMeasurement base = m(b, 39, 6, 0, 0, 2.0, 2.1, 1.9, 2.0, 2.0);
        ResultRecord r = KcostRecords.record(m(d, 72, 3, 0, 0, 2.6, 2.5, 2.5, 2.7, 2.5), base, null, S);
        Map<String, Object> f = r.flat();
        assertEquals("gda.kernel-cost", r.experiment());
        assertTrue(r.hardware(), "no NIC takes part in a dormant arm");
        assertEquals(true, f.get("gpu_hardware"));
        assertEquals(false, f.get("nic_hardware"));
        assertEquals("none", f.get("nic"));
        assertEquals("dormant", f.get("arm"));
        assertEquals(2.5, f.get("kernel_p50_ms"));
        assertEquals(2.0, f.get("baseline_p50_ms"));
        assertEquals(0.25, f.get("slowdown"));
        assertEquals(0.2, f.get("throughput_loss"));
        assertEquals(72, f.get("regs_per_thread"));
        assertEquals(39, f.get("baseline_regs_per_thread"));
        assertEquals(3, f.get("blocks_per_sm"));
        assertEquals(6, f.get("baseline_blocks_per_sm"));
        assertEquals(true, f.get("valid"));
        assertNull(f.get("waiting_loss"));
        assertEquals(KcostRecords.BASELINE, KcostRecords.experiment(b));
    }

    @Test
    void sendingArmsAreServedByTheSoftwareNic() {
        KcostPoint b = KcostPoint.absent(Caller.STREAM, 160);
        KcostPoint s = new KcostPoint(Caller.STREAM, 160, Transport.PROXY, Arm.SEND, 4, 8);
        KcostPoint w = new KcostPoint(Caller.STREAM, 160, Transport.PROXY, Arm.SEND_WAIT, 4, 8);
        long msgs = 4L * 528 * (5 + 1);
        KcostMeasurement base = m(b, 200, 1, 0, 0, 3.0, 3.0, 3.0, 3.0, 3.0);
        KcostMeasurement send = m(s, 230, 1, msgs, msgs, 3.0, 3.0, 3.0, 3.0, 3.0);
        ResultRecord r = KcostRecords.record(m(w, 230, 1, msgs, msgs, 4.0, 4.0, 4.0, 4.0, 4.0), base, send, S);
        Map<String, Object> f = r.flat();
        assertEquals("proxy.kernel-cost", r.experiment());
        assertFalse(r.hardware(), "the software NIC serves the messages");
        assertEquals("cuda+softnic", r.backend());
        assertEquals(true, f.get("gpu_hardware"));
        assertEquals(false, f.get("nic_hardware"));
        assertEquals("softnic", f.get("nic"));
        assertEquals(0.25, f.get("waiting_loss"));
        assertEquals(4, f.get("proxy_workers"));
        assertEquals(32, f.get("proxy_rings"));
        assertEquals(true, f.get("valid"));
    }

    @Test
    void lostCompletionsMakeThePointInvalid() {
        KcostPoint b = KcostPoint.absent(Caller.COMPUTE, 8);
        KcostPoint s = new KcostPoint(Caller.COMPUTE, 8, Transport.GDA, Arm.SEND, 1, 7168);
        long msgs = 528L * 6;
        KcostMeasurement base = m(b, 27, 8, 0, 0, 1.0);
        assertEquals(false, KcostRecords.record(m(s, 48, 5, msgs, msgs - 1, 1.0), base, null, S).metric("valid"));
        assertEquals(false, KcostRecords.record(m(s, 48, 5, msgs - 1, msgs - 1, 1.0), base, null, S).metric("valid"),
                "every block must have sent every message of every launch");
        assertEquals(true, KcostRecords.record(m(s, 48, 5, msgs, msgs, 1.0), base, null, S).metric("valid"));
    }

    @Test
    void aFailedPointSaysSoAndWhy() {
        KcostPoint s = new KcostPoint(Caller.COMPUTE, 32, Transport.PROXY, Arm.SEND_WAIT, 16, 8);
        Map<String, Object> f = KcostRecords.failed(s, S, "device wait timed out in block 7").flat();
        assertEquals(false, f.get("valid"));
        assertEquals("device wait timed out in block 7", f.get("error"));
        assertEquals("proxy.kernel-cost", f.get("experiment"));
        assertEquals(false, f.get("hardware"));
        assertEquals(16, f.get("msgs_per_block"));
        assertNull(f.get("kernel_p50_ms"), "no time for a run that failed");
    }

    @Test
    void pointsRefuseContradictions() {
        assertThrows(IllegalArgumentException.class, () -> new KcostPoint(Caller.COMPUTE, 8, Transport.GDA, Arm.ABSENT, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new KcostPoint(Caller.COMPUTE, 8, Transport.NONE, Arm.DORMANT, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new KcostPoint(Caller.COMPUTE, 8, Transport.GDA, Arm.DORMANT, 4, 8));
        assertThrows(IllegalArgumentException.class, () -> new KcostPoint(Caller.COMPUTE, 8, Transport.GDA, Arm.SEND, 0, 8));
        assertThrows(IllegalArgumentException.class, () -> new KcostPoint(Caller.COMPUTE, 8, Transport.GDA, Arm.SEND, 4, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new KcostSettings(528, 33, 1, 1, 1, 0, 1, 0, 4, 32, 16, -1), "threads not a multiple of 32");
        assertThrows(IllegalArgumentException.class,
                () -> new KcostSettings(528, 256, 1, 1, 0, 0, 1, 0, 4, 32, 16, -1), "no timed launch");
    }
}
