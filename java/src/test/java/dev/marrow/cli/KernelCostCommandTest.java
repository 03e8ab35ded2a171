// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.kcost.Arm;
import dev.marrow.kcost.KcostPoint;
import dev.marrow.kcost.Transport;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** marrow kernel-cost: usage errors, the no-GPU exit, and the run order of the points. */
class KernelCostCommandTest {
    @Test
    void badFlagsAreUsageErrorsNamingTheFlag() {
        String[][] cases = {
                {"--msgs", "0"}, {"--sizes", "0"}, {"--live", "-1"}, {"--threads", "33"}, {"--blocks", "0"},
                {"--launches", "0"}, {"--timeout-ms", "0"}, {"--transport", "nvshmem"}, {"--arms", "absent"},
                {"--caller", "gemm"}, {"--proxy-rings", "0"},
        };
        for (String[] c : cases) {
            CliTest.Run r = CliTest.run("kernel-cost", c[0], c[1]);
            assertEquals(ExitCodes.USAGE, r.code(), String.join(" ", c) + ": " + r.err());
            assertTrue(r.err().contains(c[0]), String.join(" ", c) + " names its flag: " + r.err());
        }
    }

    @Test
    void noGpuExits77WithTheReason() {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the no-GPU path is tested where there is none");
        CliTest.Run r = CliTest.run("kernel-cost", "--transport", "gda", "--format", "json");
        assertEquals(Main.EXIT_UNAVAILABLE, r.code(), r.err());
        assertTrue(r.err().contains("cuda"), r.err());
        assertEquals("", r.out(), "no records for a run that did not happen");
    }

    @Test
    void defaultMatrixRunsEachBaselineBeforeItsArmsAndSendBeforeSendWait() {
        KernelCostCommand c = new KernelCostCommand();
        new CommandLine(c).parseArgs();
        List<KcostPoint> pts = c.points();
        // 2 callers x 3 live counts x (baseline + 2 transports x (dormant + 3 msgs x 2 sizes x 2 arms))
        assertEquals(2 * 3 * (1 + 2 * (1 + 3 * 2 * 2)), pts.size());
        assertEquals(Arm.ABSENT, pts.getFirst().arm());
        for (int i = 0; i < pts.size(); i++) {
            KcostPoint p = pts.get(i);
            if (p.arm() == Arm.SEND_WAIT) {
                KcostPoint prev = pts.get(i - 1);
                assertEquals(Arm.SEND, prev.arm(), "send-wait's waiting loss needs send at the same point first");
                assertEquals(p.msgs(), prev.msgs());
                assertEquals(p.msgSize(), prev.msgSize());
            }
            if (p.arm() != Arm.ABSENT) {
                boolean baselineBefore = pts.subList(0, i).stream().anyMatch(q -> q.arm() == Arm.ABSENT
                        && q.caller() == p.caller() && q.live() == p.live());
                assertTrue(baselineBefore, p + " has its baseline before it");
            }
        }
        assertTrue(pts.stream().anyMatch(p -> p.transport() == Transport.PROXY && p.arm() == Arm.DORMANT));
    }

    @Test
    void armsAndTransportsNarrowTheMatrix() {
        KernelCostCommand c = new KernelCostCommand();
        new CommandLine(c).parseArgs("--transport", "gda", "--arms", "dormant", "--caller", "stream", "--live", "16");
        List<KcostPoint> pts = c.points();
        assertEquals(2, pts.size());
        assertEquals(Arm.ABSENT, pts.get(0).arm());
        assertEquals(Arm.DORMANT, pts.get(1).arm());
        assertEquals(Transport.GDA, pts.get(1).transport());
    }
}
