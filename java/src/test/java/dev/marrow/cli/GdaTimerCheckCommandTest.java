// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** gda timer-check and --responder-delay-us: the verdict and the usage errors (no GPU needed). */
class GdaTimerCheckCommandTest {
    @Test
    void verdictIsTheShiftOfTheMediansAgainstTheDelay() {
        var ok = new GdaTimerCheckCommand.Verdict(4000, 53_600, 50_000, 1000);
        assertEquals(49_600, ok.shiftNs());
        assertTrue(ok.pass(), "49.6 us for 50 us is within 1 us");
        var bad = new GdaTimerCheckCommand.Verdict(4000, 56_000, 50_000, 1000);
        assertFalse(bad.pass(), "52 us for 50 us is not");
        var early = new GdaTimerCheckCommand.Verdict(4000, 52_000, 50_000, 1000);
        assertFalse(early.pass(), "48 us for 50 us is not either");
        Map<String, Object> f = ok.record("cuda+softnic", false).flat();
        assertEquals("gda.timer-check", f.get("experiment"));
        assertEquals(-400L, f.get("shift_error_ns"));
        assertEquals(true, f.get("pass"));
        assertEquals(false, f.get("hardware"));
    }

    @Test
    void usageErrorsNameTheFlag() {
        String[][] cases = {
                {"gda", "timer-check", "--delay-us", "0"},
                {"gda", "timer-check", "--delay-us", "6000000"},
                {"gda", "timer-check", "--tolerance-us", "-1"},
                {"gda", "latency", "--responder-delay-us", "-5"},
                {"gda", "latency", "--responder-delay-us", "50", "--experiments", "putc"},
                {"gda", "latency", "--responder-delay-us", "6000000"},
        };
        for (String[] c : cases) {
            CliTest.Run r = CliTest.run(c);
            assertEquals(ExitCodes.USAGE, r.code(), String.join(" ", c) + ": " + r.err());
            String flag = c[2];
            assertTrue(r.err().contains(flag), String.join(" ", c) + " names " + flag + ": " + r.err());
        }
    }
}
