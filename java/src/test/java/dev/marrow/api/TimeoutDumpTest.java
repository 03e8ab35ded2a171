// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Parsing and writing the key=value tail of a timeout message (docs/design/watchdog.md). */
class TimeoutDumpTest {
    @Test
    void parsesThePairsAfterTheLastMarkDecimalsAsLongs() {
        String msg = "marrow_gda_cpu_run failed: ETIMEDOUT (-110): initiator timed out (position 5, x=1); state: "
                + "waited_for=cqe bound_ms=100 qpn=0x100 sq_pi=6 sq_ci=5 last_cqe=req/0x00/4 emu_qp_state=RTS";
        Map<String, Object> m = TimeoutDump.parse(msg);
        assertEquals(List.of("waited_for", "bound_ms", "qpn", "sq_pi", "sq_ci", "last_cqe", "emu_qp_state"),
                List.copyOf(m.keySet()), "only the pairs after the mark, in order");
        assertEquals(100L, m.get("bound_ms"));
        assertEquals(6L, m.get("sq_pi"));
        assertEquals("0x100", m.get("qpn"));
        assertEquals("req/0x00/4", m.get("last_cqe"));
        assertEquals("RTS", m.get("emu_qp_state"));
    }

    @Test
    void aMessageWithoutADumpHasNone() {
        assertTrue(TimeoutDump.parse("got an error CQE: syndrome=0x04").isEmpty());
        assertTrue(TimeoutDump.parse(null).isEmpty());
        assertTrue(TimeoutDump.parse("x; state:").isEmpty());
    }

    @Test
    void formatRoundTripsThroughParse() {
        Map<String, Object> in = new LinkedHashMap<>();
        in.put("waited_for", "READY for run 3");
        in.put("peer", "10.0.0.2:4791");
        in.put("elapsed_ms", 301L);
        String s = "no READY" + TimeoutDump.format(in);
        assertTrue(s.startsWith("no READY; state: waited_for=READY_for_run_3 "), s);
        Map<String, Object> out = TimeoutDump.parse(s);
        assertEquals("READY_for_run_3", out.get("waited_for"));
        assertEquals("10.0.0.2:4791", out.get("peer"));
        assertEquals(301L, out.get("elapsed_ms"));
    }
}
