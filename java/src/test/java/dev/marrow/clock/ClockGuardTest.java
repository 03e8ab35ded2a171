// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The clock is restored exactly once on every way out of a sweep. */
class ClockGuardTest {
    static ClockSweep.Cell cell(int mhz) {
        return new ClockSweep.Cell(Map.of("issue", 2929.0 / mhz + 0.27), Map.of("issue", (double) mhz),
                new dev.marrow.results.ResultRecord("test", "fake", false));
    }

    @Test
    void normalExitRestoresOnce() {
        FakeClockController c = new FakeClockController();
        List<ClockSweep.Visit> plan = ClockSweep.plan(new int[] {1980, 1410, 1005}, 2, 7);
        ClockSweep.Outcome o;
        try (ClockGuard g = ClockGuard.open(c)) {
            o = ClockSweep.run(g, plan, ClockGuardTest::cell, 0, () -> false, () -> { });
            assertEquals(0, c.restores(), "not restored while the sweep holds the guard");
        }
        assertFalse(o.cutShort());
        assertEquals(6, o.cells().size());
        assertEquals(6, c.locks());
        assertEquals(1, c.restores());
        assertEquals("restore", c.calls.getLast());
        assertEquals("check", c.calls.getFirst());
    }

    @Test
    void anExceptionInAMeasurementRestores() {
        FakeClockController c = new FakeClockController();
        AtomicInteger n = new AtomicInteger();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
            try (ClockGuard g = ClockGuard.open(c)) {
                ClockSweep.run(g, ClockSweep.plan(new int[] {1980, 1410, 1005}, 1, 1), mhz -> {
                    if (n.incrementAndGet() == 2) {
                        throw new IllegalStateException("kernel failed");
                    }
                    return cell(mhz);
                }, 0, () -> false, () -> { });
            }
        });
        assertEquals("kernel failed", e.getMessage());
        assertEquals(2, c.locks());
        assertEquals(1, c.restores());
    }

    @Test
    void aFailedLockIsStillRestored() {
        FakeClockController c = new FakeClockController(null, 1005);
        assertThrows(ClockControlException.class, () -> {
            try (ClockGuard g = ClockGuard.open(c)) {
                g.lock(1005);
            }
        });
        assertEquals(1, c.restores(), "a lock that half-worked must be undone");
    }

    @Test
    void aSimulatedSignalRestoresAndCloseDoesNotRestoreTwice() {
        FakeClockController c = new FakeClockController();
        try (ClockGuard g = ClockGuard.open(c)) {
            g.lock(1410);
            g.shutdownHook().run(); // what the JVM runs on SIGINT/SIGTERM
            assertTrue(g.restored());
            assertEquals(1, c.restores());
            assertThrows(IllegalStateException.class, () -> g.lock(1005), "no lock after the restore");
        }
        assertEquals(1, c.restores());
        assertEquals(1, c.locks());
    }

    @Test
    void aControllerThatCannotLockIsRefusedBeforeAnythingIsLocked() {
        FakeClockController c = new FakeClockController("not root", -1);
        ClockControlException e = assertThrows(ClockControlException.class, () -> ClockGuard.open(c));
        assertEquals("not root", e.getMessage());
        assertEquals(List.of("check"), c.calls);
    }

    @Test
    void nothingLockedMeansNothingRestored() {
        FakeClockController c = new FakeClockController();
        try (ClockGuard g = ClockGuard.open(c)) {
            assertEquals(-1, g.lockedMhz());
        }
        assertEquals(0, c.restores());
    }

    @Test
    void nvidiaSmiControllerRefusesWithoutTheToolOrWithoutRoot() {
        NvidiaSmiClockController missing = new NvidiaSmiClockController(0, null, () -> 0);
        assertTrue(assertThrows(ClockControlException.class, missing::checkCanLock).getMessage()
                .contains("nvidia-smi not found"));
        NvidiaSmiClockController user = new NvidiaSmiClockController(0, java.nio.file.Path.of("/bin/true"), () -> 1000);
        assertTrue(assertThrows(ClockControlException.class, user::checkCanLock).getMessage().contains("needs root"));
        // a failing command is a refusal with its exit code (false stands in for nvidia-smi; nothing is changed)
        NvidiaSmiClockController failing = new NvidiaSmiClockController(0, java.nio.file.Path.of("/bin/false"), () -> 0);
        failing.checkCanLock();
        assertTrue(assertThrows(ClockControlException.class, () -> failing.lock(1410)).getMessage()
                .contains("failed (exit 1)"));
    }
}
